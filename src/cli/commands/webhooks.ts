import type { Command } from 'commander';
import { contextOf } from '../context.js';
import { dateText } from '../output.js';

const eventList = (text: string) => text.split(',').map((type) => type.trim());

/** `maproom webhooks`: a room's webhooks (owner), as the room's share settings hold them. */
export function webhookCommands(program: Command): void {
  const hooks = program
    .command('webhooks')
    .description("a room's webhooks: its changes POSTed to other systems (owner)");

  hooks
    .command('list')
    .description("list the room's webhooks")
    .argument('<roomId>', 'the room')
    .action(async (roomId: string, _options: object, command: Command) => {
      const { api, out } = contextOf(command);
      const { webhooks } = await api.ok(
        api.client.GET('/api/rooms/{roomId}/webhooks', { params: { path: { roomId } } }),
      );
      out.result(webhooks, () =>
        out.table(webhooks, [
          ['ID', (h) => h.id],
          ['URL', (h) => h.url],
          ['EVENTS', (h) => (h.events ?? ['all']).join(',')],
          ['ENABLED', (h) => (h.enabled ? 'yes' : `no${h.disabledReason ? `: ${h.disabledReason}` : ''}`)],
          ['CREATED', (h) => dateText(h.createdAt)],
        ]),
      );
    });

  hooks
    .command('add')
    .description('add a webhook; prints its signing secret, shown only this once')
    .argument('<roomId>', 'the room')
    .argument('<url>', 'where each change is POSTed (http or https)')
    .option(
      '--events <list>',
      'comma-separated change types, e.g. marker.created,marker.updated (default: all)',
      eventList,
    )
    .action(async (roomId: string, url: string, options: { events?: string[] }, command: Command) => {
      const { api, out } = contextOf(command);
      const body = { url, ...(options.events && { events: options.events as never }) };
      const answer = await api.ok(
        api.client.POST('/api/rooms/{roomId}/webhooks', { params: { path: { roomId } }, body }),
      );
      out.result(answer, () => {
        out.note(`Webhook ${answer.id} for room ${roomId}. Its signing secret, shown only this once:`);
        out.line(answer.secret);
      });
    });

  hooks
    .command('test')
    .description('send a webhook.test delivery, then show how it went')
    .argument('<roomId>', 'the room')
    .argument('<hookId>', 'the webhook')
    .action(async (roomId: string, hookId: string, _options: object, command: Command) => {
      const { api, out } = contextOf(command);
      const path = { roomId, hookId };
      const answer = await api.ok(api.client.POST('/api/rooms/{roomId}/webhooks/{hookId}/test', { params: { path } }));
      out.result(answer, () =>
        out.line(`Sent ${answer.deliveryId}; maproom webhooks deliveries ${roomId} ${hookId} shows how it went`),
      );
    });

  hooks
    .command('deliveries')
    .description("the webhook's last 100 deliveries, newest first")
    .argument('<roomId>', 'the room')
    .argument('<hookId>', 'the webhook')
    .action(async (roomId: string, hookId: string, _options: object, command: Command) => {
      const { api, out } = contextOf(command);
      const path = { roomId, hookId };
      const { deliveries } = await api.ok(
        api.client.GET('/api/rooms/{roomId}/webhooks/{hookId}/deliveries', { params: { path } }),
      );
      out.result(deliveries, () =>
        out.table(deliveries, [
          ['ID', (d) => d.id],
          ['EVENT', (d) => d.eventType],
          ['STATUS', (d) => d.status],
          ['ATTEMPTS', (d) => d.attempt],
          ['ANSWER', (d) => d.responseStatus ?? d.responseExcerpt ?? ''],
          ['AT', (d) => (d.at === null ? '' : dateText(d.at))],
        ]),
      );
    });

  hooks
    .command('remove')
    .description('remove a webhook and its delivery log')
    .argument('<roomId>', 'the room')
    .argument('<hookId>', 'the webhook')
    .action(async (roomId: string, hookId: string, _options: object, command: Command) => {
      const { api, out } = contextOf(command);
      await api.ok(
        api.client.DELETE('/api/rooms/{roomId}/webhooks/{hookId}', { params: { path: { roomId, hookId } } }),
      );
      out.result({ removed: hookId }, () => out.line(`Removed webhook ${hookId}`));
    });
}
