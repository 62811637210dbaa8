import { t } from '../i18n/index.js';

/**
 * The page's own confirmation, in place of the browser's `confirm()` (which blocks the page, looks
 * like a warning of the browser, and some browsers let a person silence): a modal `<dialog>` with
 * the question as text, Cancel (focused, and Escape) and the action's button. Used for what
 * cannot be undone; a restorable delete is done at once with an Undo notice instead.
 */
export function confirmInPage(question: string, action = t('ui:confirm.delete')): Promise<boolean> {
  return new Promise((resolve) => {
    const dialog = document.createElement('dialog');
    dialog.className = 'confirm-dialog';
    dialog.setAttribute('aria-label', t('ui:confirm.label'));
    const text = document.createElement('p');
    text.textContent = question;
    const buttons = document.createElement('div');
    buttons.className = 'row';
    const cancel = document.createElement('button');
    cancel.type = 'button';
    cancel.textContent = t('ui:confirm.cancel');
    const confirm = document.createElement('button');
    confirm.type = 'button';
    confirm.className = 'danger';
    confirm.textContent = action;
    buttons.append(cancel, confirm);
    dialog.append(text, buttons);
    const answer = (yes: boolean) => {
      dialog.close();
      dialog.remove();
      resolve(yes);
    };
    cancel.addEventListener('click', () => answer(false));
    confirm.addEventListener('click', () => answer(true));
    dialog.addEventListener('cancel', (event) => {
      event.preventDefault();
      answer(false);
    });
    document.body.append(dialog);
    dialog.showModal();
    cancel.focus();
  });
}
