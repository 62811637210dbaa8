import type { IconRow } from './icons.repository.js';

export const presentIcon = (row: IconRow) => ({
  iconId: row.id,
  name: row.name,
  size: row.size,
  contentType: row.content_type as 'image/svg+xml' | 'image/png',
  createdAt: row.created_at,
  createdBy: row.created_by,
});
