import { type Command, InvalidArgumentError } from 'commander';
import type { paths } from '../../../web/src/api/schema.js';
import { contextOf } from '../context.js';
import { dateText } from '../output.js';

type Permission =
  paths['/api/rooms/{roomId}/api-tokens']['post']['requestBody']['content']['application/json']['permissions'][number];

const positiveInteger = (text: string) => {
  const value = Number(text);
  if (!Number.isInteger(value) || value < 1) throw new InvalidArgumentError('must be a whole number of days');
  return value;
};
const permissionList = (text: string) => text.split(',').map((p) => p.trim()) as Permission[];

export function roomCommands(program: Command): void {
  program
    .command('rooms')
    .description('list your rooms (a session: maproom login)')
    .action(async (_options: object, command: Command) => {
      const { api, out } = contextOf(command);
      const { rooms } = await api.ok(api.client.GET('/api/rooms'));
      out.result(rooms, () =>
        out.table(rooms, [
          ['ROOM', (r) => r.roomId],
          ['NAME', (r) => r.name],
          ['ROLE', (r) => r.role],
          ['PUBLIC', (r) => r.isPublic],
          ['CREATED', (r) => dateText(r.createdAt)],
        ]),
      );
    });

  const room = program.command('room').description('manage a room');
  room
    .command('create')
    .description('create a room (you become its owner); its id is 10 characters of A-Z a-z 0-9 _ -')
    .argument('<roomId>', 'the new room id, e.g. team-map01')
    .option('--name <name>', "the room's name")
    .option('--description <text>', "the room's description")
    .option('--public', 'make the whole room readable by anyone')
    .action(async (roomId: string, options: { name?: string; description?: string; public?: boolean }, command) => {
      const { api, out } = contextOf(command);
      const body = { name: options.name, description: options.description, isPublic: options.public };
      const answer = await api.ok(api.client.POST('/api/rooms/{roomId}', { params: { path: { roomId } }, body }));
      out.result(answer, () =>
        out.line(answer.isNewRoom ? `Created room ${roomId}` : `Room ${roomId} exists already; nothing changed`),
      );
    });

  program
    .command('token')
    .description('room API tokens for scripts')
    .command('create')
    .description('issue a room API token (owner); prints its secret, shown only this once')
    .argument('<roomId>', 'the room the token is for')
    .option('--permissions <list>', 'comma-separated: read, write, upload', permissionList, ['read'] as Permission[])
    .option('--days <n>', 'days until it expires', positiveInteger, 30)
    .option('--name <name>', 'what the token is for', 'maproom command line')
    .action(async (roomId: string, options: { permissions: Permission[]; days: number; name: string }, command) => {
      const { api, out } = contextOf(command);
      const body = { name: options.name, permissions: options.permissions, expiresInDays: options.days };
      const answer = await api.ok(
        api.client.POST('/api/rooms/{roomId}/api-tokens', { params: { path: { roomId } }, body }),
      );
      out.result({ ...answer, roomId, ...body }, () => {
        out.note(
          `Token ${answer.id} for room ${roomId} (${options.permissions.join(', ')}), expires in ${options.days} days. ` +
            'Its secret, shown only this once:',
        );
        out.line(answer.token);
      });
    });
}
