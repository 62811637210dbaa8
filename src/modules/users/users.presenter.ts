import type { UserRow } from './users.repository.js';

export const presentUser = (user: UserRow) => ({
  id: user.id,
  email: user.email,
  name: user.name,
  emailVerified: user.email_verified_at !== null,
});
