import common from './es/common.json' with { type: 'json' };
import auth from './es/auth.json' with { type: 'json' };
import admin from './es/admin.json' with { type: 'json' };
import room from './es/room.json' with { type: 'json' };
import markers from './es/markers.json' with { type: 'json' };
import layers from './es/layers.json' with { type: 'json' };
import draw from './es/draw.json' with { type: 'json' };
import settings from './es/settings.json' with { type: 'json' };
import ui from './es/ui.json' with { type: 'json' };
import actions from './es/actions.json' with { type: 'json' };
import share from './es/share.json' with { type: 'json' };
import print from './es/print.json' with { type: 'json' };

/** The es catalog: one namespace per part of the application. */
export default { actions, common, auth, admin, room, markers, layers, draw, settings, ui, print, share };
