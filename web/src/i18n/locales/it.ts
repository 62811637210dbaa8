import common from './it/common.json' with { type: 'json' };
import auth from './it/auth.json' with { type: 'json' };
import admin from './it/admin.json' with { type: 'json' };
import room from './it/room.json' with { type: 'json' };
import markers from './it/markers.json' with { type: 'json' };
import layers from './it/layers.json' with { type: 'json' };
import draw from './it/draw.json' with { type: 'json' };
import settings from './it/settings.json' with { type: 'json' };
import ui from './it/ui.json' with { type: 'json' };
import actions from './it/actions.json' with { type: 'json' };
import share from './it/share.json' with { type: 'json' };
import print from './it/print.json' with { type: 'json' };

/** The it catalog: one namespace per part of the application. */
export default { actions, common, auth, admin, room, markers, layers, draw, settings, ui, print, share };
