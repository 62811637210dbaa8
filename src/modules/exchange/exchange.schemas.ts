import { type Static, Type } from 'typebox';

/** What an import restored, by kind (`imported` of the import's answer and of `room.imported`). */
export const ImportedCounts = Type.Object({
  markers: Type.Integer(),
  drawings: Type.Integer(),
  comments: Type.Integer(),
  replies: Type.Integer(),
  slides: Type.Integer(),
  icons: Type.Integer(),
  images: Type.Integer(),
  layers: Type.Integer(),
  rasterLayers: Type.Integer(),
});
export type ImportCounts = Static<typeof ImportedCounts>;
