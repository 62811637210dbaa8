import common from './fr/common.json' with { type: 'json' };
import auth from './fr/auth.json' with { type: 'json' };
import admin from './fr/admin.json' with { type: 'json' };
import room from './fr/room.json' with { type: 'json' };
import markers from './fr/markers.json' with { type: 'json' };
import layers from './fr/layers.json' with { type: 'json' };
import draw from './fr/draw.json' with { type: 'json' };
import settings from './fr/settings.json' with { type: 'json' };
import ui from './fr/ui.json' with { type: 'json' };
import actions from './fr/actions.json' with { type: 'json' };
import share from './fr/share.json' with { type: 'json' };
import print from './fr/print.json' with { type: 'json' };

/** The fr catalog: one namespace per part of the application. */
export default { actions, common, auth, admin, room, markers, layers, draw, settings, ui, print, share };
