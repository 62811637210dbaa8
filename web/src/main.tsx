import { render } from 'preact';
import 'maplibre-gl/dist/maplibre-gl.css';
import { prewarm, setWorkerUrl } from 'maplibre-gl';
import './styles.css';
import { route } from './router';
import { useStore } from './store';
import { HomePage } from './pages/home-page';
import { RoomPage } from './pages/room-page';
import { DeckPage } from './pages/deck-page';
import { deckPath, embedDeckPath, embedPath, mapPath, roomPath } from './api/early-reads';
import { EmbedPage } from './pages/embed-page';
import { embedded } from './session';
import { VerifyEmailPage } from './pages/verify-email-page';
import { SignedInPage } from './pages/signed-in-page';
import { AdminPage } from './pages/admin/admin-page';
import { SignInAgain } from './pages/sign-in-again';
import { ForgotPasswordPage } from './pages/forgot-password';
import { ResetPasswordPage } from './pages/reset-password-page';
import { AccountPage } from './pages/account-page';
import { keepSessionRenewed } from './api/session-renewal';
import { handOverMapWorker, mapWorkerUrl } from './map/early-worker';
import { startLanguage } from './i18n';

setWorkerUrl(mapWorkerUrl);
// On the pages with a map, MapLibre takes its worker now (started by src/early.ts), not when the
// map is made: the deck's tiles and the room's markers wait for it.
if (mapPath(location.pathname)) handOverMapWorker(prewarm);

// An embed page has no session to renew (session.ts, `embedded`).
if (!embedded) keepSessionRenewed();

function App() {
  return (
    <>
      <Page />
      {!embedded && <SignInAgain />}
    </>
  );
}

function Page() {
  const path = useStore(route).split('?')[0]!;
  const room = roomPath(path);
  if (room) return <RoomPage key={room} roomId={room} />;
  const deck = deckPath(path) ?? embedDeckPath(path);
  if (deck) return <DeckPage key={deck} roomId={deck} />;
  const embed = embedPath(path);
  if (embed) return <EmbedPage key={embed} roomId={embed} />;
  if (path === '/verify-email') return <VerifyEmailPage />;
  if (path === '/signed-in') return <SignedInPage />;
  if (path === '/admin') return <AdminPage />;
  if (path === '/forgot-password') return <ForgotPasswordPage />;
  if (path === '/reset-password') return <ResetPasswordPage />;
  if (path === '/account') return <AccountPage />;
  return <HomePage />;
}

// The page is drawn in its language: English at once, another once its catalog is here.
void startLanguage().then(() => render(<App />, document.getElementById('app')!));
