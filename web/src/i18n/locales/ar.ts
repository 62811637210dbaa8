import common from './ar/common.json' with { type: 'json' };
import auth from './ar/auth.json' with { type: 'json' };
import admin from './ar/admin.json' with { type: 'json' };
import room from './ar/room.json' with { type: 'json' };
import markers from './ar/markers.json' with { type: 'json' };
import layers from './ar/layers.json' with { type: 'json' };
import draw from './ar/draw.json' with { type: 'json' };
import settings from './ar/settings.json' with { type: 'json' };
import ui from './ar/ui.json' with { type: 'json' };
import actions from './ar/actions.json' with { type: 'json' };
import share from './ar/share.json' with { type: 'json' };
import print from './ar/print.json' with { type: 'json' };

/** The ar catalog: one namespace per part of the application. */
export default { actions, common, auth, admin, room, markers, layers, draw, settings, ui, print, share };
