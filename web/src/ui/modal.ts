import { useLayoutEffect, useRef } from 'preact/hooks';

/**
 * A modal `<dialog>` shown as soon as it is rendered (give it `ref={dialog}`). `close` closes
 * it, then gives the focus back to where it was (while a modal dialog is open the rest of the
 * page is inert), then calls `onClose`.
 */
export function useModal(onClose: () => void) {
  const dialog = useRef<HTMLDialogElement>(null);
  const before = useRef<HTMLElement | null>(null);
  useLayoutEffect(() => {
    before.current = document.activeElement as HTMLElement | null;
    dialog.current!.showModal();
  }, []);
  const close = () => {
    dialog.current!.close();
    before.current?.focus();
    onClose();
  };
  return { dialog, close };
}
