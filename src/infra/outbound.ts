import { lookup as dnsLookup, type LookupAddress } from 'node:dns';
import { createWriteStream } from 'node:fs';
import http from 'node:http';
import https from 'node:https';
import { isIP, type LookupFunction } from 'node:net';
import { pipeline } from 'node:stream/promises';
import ipaddr from 'ipaddr.js';

/**
 * Requests the service makes to addresses users gave (webhooks, remote layers). Unless the operator allows
 * it (OUTBOUND_ALLOW_PRIVATE), an address that is not public unicast is refused: loopback,
 * private, link-local (cloud metadata), unique-local, carrier-grade NAT, multicast, reserved.
 * The check is made on the addresses the name resolves to, at connection time, so a name
 * that resolves differently later (DNS rebinding) is caught too. A POST follows no redirect; a
 * download follows a few, each address checked as the first.
 */

export class OutboundRefused extends Error {}

/** Whether an IP address is one a user-given address may reach without the operator's leave. */
export function isPublicAddress(address: string): boolean {
  if (!ipaddr.isValid(address)) return false;
  // An IPv4 address written as IPv6 (::ffff:10.0.0.1) is judged as the IPv4 address.
  const parsed = ipaddr.process(address);
  // The deprecated IPv4-compatible form (::10.0.0.1) is no public address either.
  if (parsed.kind() === 'ipv6' && (parsed as ipaddr.IPv6).parts.slice(0, 6).every((part) => part === 0)) return false;
  return parsed.range() === 'unicast';
}

/** A DNS lookup that fails for names resolving to a non-public address. */
function publicOnlyLookup(): LookupFunction {
  return (hostname, options, callback) => {
    dnsLookup(hostname, { ...options, all: true }, (error, addresses) => {
      if (error) return callback(error, '', 0);
      const list = addresses as LookupAddress[];
      const refused = list.find((a) => !isPublicAddress(a.address));
      if (refused) {
        // Not which address: the delivery log would map the network for whoever owns a hook.
        return callback(new OutboundRefused(`${hostname} resolves to a private address`), '', 0);
      }
      if (options.all) return (callback as unknown as (e: null, a: LookupAddress[]) => void)(null, list);
      const first = list[0]!;
      callback(null, first.address, first.family);
    });
  };
}

/** Why this address may not be requested (a literal private IP, a scheme other than http(s)); undefined when it may. */
export function refusalOf(url: URL, allowPrivate: boolean): string | undefined {
  if (url.protocol !== 'http:' && url.protocol !== 'https:') return 'only http and https addresses are allowed';
  if (url.username || url.password) return 'the address may not carry a user name or password';
  const host = url.hostname.replace(/^\[|\]$/g, '');
  if (!allowPrivate && isIP(host) && !isPublicAddress(host)) return `${host} is a private address`;
  if (!allowPrivate && (host === 'localhost' || host.endsWith('.localhost'))) return `${host} is a private address`;
  return undefined;
}

export interface OutboundAnswer {
  status: number;
  /** The start of the answer's body, as text. */
  excerpt: string;
}

export interface OutboundPost {
  url: string;
  headers: Record<string, string>;
  body: string;
  timeoutMs: number;
  allowPrivate: boolean;
}

/** Longest part of an answer kept (the delivery log's excerpt); the rest is not read. */
export const EXCERPT_BYTES = 1024;

/**
 * POSTs `body` and answers the status and the start of the answer. Rejects with
 * OutboundRefused for a refused address and with an Error for a network failure or a
 * receiver slower than `timeoutMs` in all (connecting, sending and answering).
 */
export function postOutbound(request: OutboundPost): Promise<OutboundAnswer> {
  const url = new URL(request.url);
  const refusal = refusalOf(url, request.allowPrivate);
  if (refusal) return Promise.reject(new OutboundRefused(refusal));
  const client = url.protocol === 'https:' ? https : http;
  return new Promise<OutboundAnswer>((resolve, reject) => {
    const req = client.request(url, {
      method: 'POST',
      headers: { ...request.headers, 'content-length': Buffer.byteLength(request.body) },
      lookup: request.allowPrivate ? undefined : publicOnlyLookup(),
      signal: AbortSignal.timeout(request.timeoutMs),
      agent: false,
    });
    req.on('error', (error) =>
      reject(error.name === 'AbortError' ? new Error(`no answer within ${request.timeoutMs} ms`) : error),
    );
    req.on('response', (res) => {
      const chunks: Buffer[] = [];
      let kept = 0;
      const done = () => {
        res.destroy();
        resolve({
          status: res.statusCode ?? 0,
          // Without NUL characters, which PostgreSQL's text refuses.
          excerpt: Buffer.concat(chunks).toString('utf8').slice(0, EXCERPT_BYTES).replaceAll('\u0000', ''),
        });
      };
      res.on('data', (chunk: Buffer) => {
        chunks.push(chunk);
        kept += chunk.length;
        if (kept >= EXCERPT_BYTES) done();
      });
      res.on('end', done);
      res.on('error', done);
    });
    req.end(request.body);
  });
}

export interface OutboundDownload {
  url: string;
  /** Where the body is written. */
  path: string;
  /** Bodies longer than this are refused (OutboundTooLarge). */
  maxBytes: number;
  timeoutMs: number;
  allowPrivate: boolean;
  signal?: AbortSignal;
}

/** An address's body that is longer than the download allows. */
export class OutboundTooLarge extends Error {}

/** How many redirects a download follows, each address checked as the first. */
const MAX_REDIRECTS = 5;

/**
 * GETs `url` into `path` (a source a user gave: a remote layer), following up to five
 * redirects, each checked as the first address; an answer other than 2xx is an Error naming
 * its status. Answers the address that gave the body and its content type.
 */
export async function downloadOutbound(request: OutboundDownload): Promise<{ url: string; contentType: string }> {
  let url = new URL(request.url);
  for (let hop = 0; hop <= MAX_REDIRECTS; hop++) {
    const answer = await getOnce(url, request);
    if (answer.redirect === undefined) return { url: url.href, contentType: answer.contentType };
    url = new URL(answer.redirect, url);
  }
  throw new Error(`more than ${MAX_REDIRECTS} redirects`);
}

function getOnce(url: URL, request: OutboundDownload): Promise<{ redirect?: string; contentType: string }> {
  const refusal = refusalOf(url, request.allowPrivate);
  if (refusal) return Promise.reject(new OutboundRefused(refusal));
  const client = url.protocol === 'https:' ? https : http;
  const signals = [AbortSignal.timeout(request.timeoutMs), ...(request.signal ? [request.signal] : [])];
  return new Promise((resolve, reject) => {
    const req = client.get(url, {
      headers: { accept: '*/*', 'user-agent': 'Maproom' },
      lookup: request.allowPrivate ? undefined : publicOnlyLookup(),
      signal: AbortSignal.any(signals),
      agent: false,
    });
    req.on('error', (error) =>
      reject(error.name === 'AbortError' ? new Error(`no answer within ${request.timeoutMs} ms`) : error),
    );
    req.on('response', (res) => {
      const status = res.statusCode ?? 0;
      const contentType = String(res.headers['content-type'] ?? '');
      if (status >= 300 && status < 400 && res.headers.location) {
        res.destroy();
        return resolve({ redirect: res.headers.location, contentType });
      }
      if (status < 200 || status >= 300) {
        res.destroy();
        return reject(new Error(`the address answered HTTP ${status}`));
      }
      const declared = Number(res.headers['content-length'] ?? 0);
      if (declared > request.maxBytes) {
        res.destroy();
        return reject(new OutboundTooLarge(`the source is larger than ${request.maxBytes} bytes`));
      }
      let bytes = 0;
      const file = createWriteStream(request.path);
      res.on('data', (chunk: Buffer) => {
        bytes += chunk.length;
        if (bytes > request.maxBytes)
          res.destroy(new OutboundTooLarge(`the source is larger than ${request.maxBytes} bytes`));
      });
      pipeline(res, file).then(
        () => resolve({ contentType }),
        (error: Error) =>
          reject(error.name === 'AbortError' ? new Error(`no answer within ${request.timeoutMs} ms`) : error),
      );
    });
  });
}
