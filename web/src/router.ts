import { Store } from './store';

/** The page's path; links and `navigate` change it without a reload. */
export const route = new Store(location.pathname + location.search);

export function navigate(to: string) {
  // An embed page's frame stays the embed: the rest of the application opens in a tab of its
  // own, where its own framing rules hold.
  if (/^\/e\//.test(location.pathname) && !to.startsWith('/e/')) return void window.open(to, '_blank', 'noopener');
  history.pushState(null, '', to);
  route.set(to);
  window.scrollTo(0, 0);
}

addEventListener('popstate', () => route.set(location.pathname + location.search));

/** A link inside the application (a plain <a>, so it still opens in a new tab). */
export function linkClick(event: MouseEvent) {
  const anchor = event.currentTarget as HTMLAnchorElement;
  if (event.ctrlKey || event.metaKey || event.shiftKey || event.button !== 0) return;
  event.preventDefault();
  navigate(anchor.getAttribute('href')!);
}
