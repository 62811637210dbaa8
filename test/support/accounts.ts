import assert from 'node:assert/strict';
import { call, type TestApp } from '../helpers.js';

/** What the accounts-*.test.ts files share: the rooms and members a signed-in person sees. */

/** `GET /api/rooms` as `user` sees it. */
export async function roomsOf(app: TestApp['app'], user: { token: string }) {
  const res = await call(app, 'GET', '/api/rooms', { auth: user.token });
  assert.equal(res.statusCode, 200, res.body);
  return res.json().rooms as Array<{
    roomId: string;
    role: string;
    name: string | null;
    createdAt: number;
    isPublic: boolean;
  }>;
}

/** `GET /api/rooms/:roomId/members` as `user` sees it. */
export async function membersOf(app: TestApp['app'], user: { token: string }, roomId: string) {
  const res = await call(app, 'GET', `/api/rooms/${roomId}/members`, { auth: user.token });
  assert.equal(res.statusCode, 200, res.body);
  return res.json() as Array<{ userId: string; email: string; role: string; addedAt?: number; addedBy?: string }>;
}
