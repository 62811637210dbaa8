import common from './en/common.json' with { type: 'json' };
import auth from './en/auth.json' with { type: 'json' };
import admin from './en/admin.json' with { type: 'json' };
import room from './en/room.json' with { type: 'json' };
import markers from './en/markers.json' with { type: 'json' };
import layers from './en/layers.json' with { type: 'json' };
import draw from './en/draw.json' with { type: 'json' };
import settings from './en/settings.json' with { type: 'json' };
import ui from './en/ui.json' with { type: 'json' };
import actions from './en/actions.json' with { type: 'json' };
import share from './en/share.json' with { type: 'json' };
import print from './en/print.json' with { type: 'json' };

/** The en catalog: one namespace per part of the application. */
export default { actions, common, auth, admin, room, markers, layers, draw, settings, ui, print, share };
