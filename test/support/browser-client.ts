import { request as httpRequest } from 'node:http';
import { request as httpsRequest } from 'node:https';

/**
 * A small browser for the sign-in tests: it keeps cookies (by host and path, as a browser
 * would), trusts a test CA for HTTPS, and lets the test follow redirects one at a time.
 */

export interface Answer {
  /** The address asked. */
  url: string;
  status: number;
  /** The Location header resolved against the request's address (with its fragment). */
  location?: string;
  body: string;
  headers: Record<string, string | string[] | undefined>;
}

interface Cookie {
  value: string;
  path: string;
}

export class BrowserClient {
  private readonly jar = new Map<string, Map<string, Cookie>>();

  constructor(private readonly ca: Buffer) {}

  /** The cookies this browser would send to `url`. */
  cookiesFor(url: string): Record<string, string> {
    const { host, pathname } = new URL(url);
    const found: Record<string, string> = {};
    for (const [name, cookie] of this.jar.get(host) ?? [])
      if (pathname === cookie.path || pathname.startsWith(cookie.path.endsWith('/') ? cookie.path : `${cookie.path}/`))
        found[name] = cookie.value;
    return found;
  }

  /** Gives `to`'s host the cookies of `from`'s (two instances behind one address, as a load balancer shows them). */
  share(from: string, to: string): void {
    this.jar.set(new URL(to).host, new Map(this.jar.get(new URL(from).host)));
  }

  forget(url: string, name: string): void {
    this.jar.get(new URL(url).host)?.delete(name);
  }

  get(url: string): Promise<Answer> {
    return this.send('GET', url);
  }

  /** Posts a form (application/x-www-form-urlencoded), as a browser submits one; without one, an empty POST (a page's fetch). */
  post(url: string, form?: Record<string, string>): Promise<Answer> {
    return this.send('POST', url, form && new URLSearchParams(form).toString());
  }

  private send(method: string, url: string, body?: string): Promise<Answer> {
    const target = new URL(url);
    const cookies = Object.entries(this.cookiesFor(url))
      .map(([name, value]) => `${name}=${value}`)
      .join('; ');
    const headers: Record<string, string> = {
      ...(cookies && { cookie: cookies }),
      ...(body !== undefined && {
        'content-type': 'application/x-www-form-urlencoded',
        'content-length': String(Buffer.byteLength(body)),
      }),
      ...(body === undefined && method === 'POST' && { 'content-length': '0' }),
    };
    const request = target.protocol === 'https:' ? httpsRequest : httpRequest;
    return new Promise((resolve, reject) => {
      const req = request(target, { method, headers, ...(target.protocol === 'https:' && { ca: this.ca }) }, (res) => {
        let text = '';
        res.setEncoding('utf8');
        res.on('data', (chunk: string) => (text += chunk));
        res.on('end', () => {
          this.keep(target, res.headers['set-cookie'] ?? []);
          const location = res.headers.location;
          resolve({
            url: target.href,
            status: res.statusCode ?? 0,
            ...(location && { location: new URL(location, target).href }),
            body: text,
            headers: res.headers,
          });
        });
      });
      req.on('error', reject);
      req.end(body);
    });
  }

  private keep(target: URL, setCookies: string[]): void {
    const cookies = this.jar.get(target.host) ?? new Map<string, Cookie>();
    this.jar.set(target.host, cookies);
    for (const line of setCookies) {
      const [pair, ...attributes] = line.split(';').map((part) => part.trim());
      const at = pair!.indexOf('=');
      const name = pair!.slice(0, at);
      const value = pair!.slice(at + 1);
      const attribute = (key: string) =>
        attributes.find((a) => a.toLowerCase().startsWith(`${key}=`))?.slice(key.length + 1);
      const expires = attribute('expires');
      const gone = attribute('max-age') === '0' || (expires !== undefined && Date.parse(expires) < Date.now());
      if (gone || value === '') cookies.delete(name);
      else cookies.set(name, { value, path: attribute('path') ?? '/' });
    }
  }
}
