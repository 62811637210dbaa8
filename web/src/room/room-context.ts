import type { EmbedOptions } from '../embed-options';
import { createContext } from 'preact';
import { useContext } from 'preact/hooks';
import type { Map as MapLibreMap } from 'maplibre-gl';
import type { RoomOpening } from '../opening';
import type { Store } from '../store';
import type { Attempt, Notify } from '../ui/notices';
import type { RoomMembers } from './actions/members';
import type { RoomModel } from './room-model';
import type { TimeView } from './time-view';
import type { Located } from './locate';
import type { UndoHistory } from './undo';
import type { RoomPresence } from './presence';

/** What is selected on the map: a marker, a drawing or a layer (their panels and comment threads); a layer with the clicked feature's id. */
export type Selection = { kind: 'marker' | 'drawing' | 'layer'; id: string; featureId?: number } | null;

/** The layer whose attribute table is open, and the text it is filtered by ('' for none). */
export type OpenTable = { layerId: string; q: string } | null;

/**
 * What a click on the map does: select, add a marker, move the selected one there (placing.ts),
 * draw, or reshape a layer's feature (panels/feature-shape.tsx: the side panel stays, with Save).
 */
export type Mode = 'browse' | 'add-marker' | 'move-marker' | 'draw' | 'reshape';

export interface RoomContextValue {
  roomId: string;
  model: RoomModel;
  /** The room's opening (opening.ts): when the map view gives the map its content, when the panels come. */
  opening: RoomOpening;
  /** The room's members and invitations, read when the owner's views need them (room/actions/members.ts). */
  members: RoomMembers;
  /** Who is in the room, their cursors and views, whom this page follows (room/presence.ts). */
  presence: RoomPresence;
  map: Store<MapLibreMap | null>;
  selection: Store<Selection>;
  mode: Store<Mode>;
  /**
   * The attribute table open (one at a time), by its layer's Table button or by the search
   * box's "Search all N features of …" (panels/attribute-table.tsx).
   */
  table: Store<OpenTable>;
  /** The person's position once "Locate me" has found it, followed while they walk (room/locate.ts). */
  located: Store<Located | null>;
  /** Layers and rasters hidden on this page only (the stored visibility is the layer's style). */
  hidden: Store<Set<string>>;
  /** What the map shows: the room now, at a past moment, or the markers still ahead (room/time-view.ts). */
  timeView: Store<TimeView>;
  /** Undo and redo of the person's own changes (room/undo.ts). */
  undo: UndoHistory;
  role: 'owner' | 'editor' | 'viewer';
  canEdit: boolean;
  isOwner: boolean;
  /** Shows a short message to the person (a failed save, a finished upload). */
  notify: Notify;
  /** Runs a request of a panel; a failure is shown as an error notice (ui/notices.ts). */
  attempt: Attempt;
  /** On an embed page (`/e/:roomId`): what its address asks for (embed/embed-options.ts). */
  embed?: EmbedOptions;
}

export const RoomContext = createContext<RoomContextValue | null>(null);

export function useRoom(): RoomContextValue {
  const value = useContext(RoomContext);
  if (!value) throw new Error('useRoom outside a room');
  return value;
}
