import common from './de/common.json' with { type: 'json' };
import auth from './de/auth.json' with { type: 'json' };
import admin from './de/admin.json' with { type: 'json' };
import room from './de/room.json' with { type: 'json' };
import markers from './de/markers.json' with { type: 'json' };
import layers from './de/layers.json' with { type: 'json' };
import draw from './de/draw.json' with { type: 'json' };
import settings from './de/settings.json' with { type: 'json' };
import ui from './de/ui.json' with { type: 'json' };
import actions from './de/actions.json' with { type: 'json' };
import share from './de/share.json' with { type: 'json' };
import print from './de/print.json' with { type: 'json' };

/** The de catalog: one namespace per part of the application. */
export default { actions, common, auth, admin, room, markers, layers, draw, settings, ui, print, share };
