import { ApiError, authHeaders } from '../api/client';

/**
 * Posts a multipart form with upload progress (fetch reports none), with the session's
 * credential; resolves with the JSON answer, rejects with the service's error.
 */
export function postForm<T>(
  url: string,
  form: FormData,
  onProgress?: (fraction: number) => void,
): Promise<{ status: number; body: T }> {
  return new Promise((resolve, reject) => {
    const request = new XMLHttpRequest();
    request.open('POST', url);
    for (const [name, value] of Object.entries(authHeaders())) request.setRequestHeader(name, value);
    request.responseType = 'json';
    if (onProgress)
      request.upload.onprogress = (event) => event.lengthComputable && onProgress(event.loaded / event.total);
    request.onload = () => {
      const body = request.response as (T & { error?: string; message?: string; details?: unknown }) | null;
      if (request.status >= 200 && request.status < 300) resolve({ status: request.status, body: body as T });
      else
        reject(
          new ApiError(
            request.status,
            body?.error ?? 'error',
            body?.message ?? `Upload failed (${request.status})`,
            body?.details,
          ),
        );
    };
    request.onerror = () => reject(new ApiError(0, 'network', 'The connection was lost during the upload'));
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
