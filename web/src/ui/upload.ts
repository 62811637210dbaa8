import { ApiError, sendWithSession } from '../api/client';
import { t } from '../i18n/index.js';

/**
 * Posts a multipart form with upload progress (fetch reports none), with the session's
 * credential; resolves with the JSON answer, rejects with the service's error.
 */
export function postForm<T>(
  url: string,
  form: FormData,
  onProgress?: (fraction: number) => void,
): Promise<{ status: number; body: T }> {
  // Through the session like every request (api/client.ts): refused for a lapsed session, it is
  // sent again once the person has signed in again.
  return sendWithSession((token) => sendForm<T>(url, form, token, onProgress)).then(({ request, body }) => {
    if (request.status >= 200 && request.status < 300) return { status: request.status, body: body as T };
    throw new ApiError(
      request.status,
      body?.error ?? 'error',
      body?.message ?? t('ui:upload.failed', { status: request.status }),
      body?.details,
    );
  });
}

type Answer<T> = (T & { error?: string; message?: string; details?: unknown }) | null;

function sendForm<T>(url: string, form: FormData, token: string | null, onProgress?: (fraction: number) => void) {
  return new Promise<{ status: number; request: XMLHttpRequest; body: Answer<T> }>((resolve, reject) => {
    const request = new XMLHttpRequest();
    request.open('POST', url);
    if (token) request.setRequestHeader('Authorization', `Bearer ${token}`);
    request.responseType = 'json';
    if (onProgress)
      request.upload.onprogress = (event) => event.lengthComputable && onProgress(event.loaded / event.total);
    request.onload = () => resolve({ status: request.status, request, body: request.response as Answer<T> });
    request.onerror = () => reject(new ApiError(0, 'network', t('ui:upload.connectionLost')));
    request.send(form);
  });
}

/** A form of named text fields and one file. */
export function formOf(
  fileField: string,
  file: Blob,
  fileName: string,
  fields: Record<string, string | undefined> = {},
) {
  const form = new FormData();
  for (const [name, value] of Object.entries(fields)) if (value !== undefined) form.append(name, value);
  form.append(fileField, file, fileName);
  return form;
}
