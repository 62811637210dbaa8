import type { Command } from 'commander';
import { read } from 'read';
import { Api, ApiError } from '../client.js';
import { forgetLogin, readLogin, resolveCredentials, saveLogin } from '../credentials.js';
import { contextOf, type GlobalOptions } from '../context.js';
import { Output } from '../output.js';

/** Everything piped to standard input, as lines. */
async function stdinLines(): Promise<string[]> {
  let text = '';
  for await (const chunk of process.stdin) text += chunk;
  return text.split(/\r?\n/);
}

/** The e-mail (unless given) and the password: asked at a terminal, the password without echo; else read from standard input, one a line. */
async function askLogin(email: string | undefined): Promise<{ email: string; password: string }> {
  if (!process.stdin.isTTY) {
    const lines = await stdinLines();
    const [first, second] = email ? [email, lines[0]] : lines;
    return { email: (first ?? '').trim(), password: second ?? '' };
  }
  const ask = { input: process.stdin, output: process.stderr };
  const asked = email ?? (await read({ ...ask, prompt: 'E-mail: ' })).trim();
  const password = await read({ ...ask, prompt: 'Password: ', silent: true, replace: '' });
  process.stderr.write('\n'); // the Enter that was not echoed
  return { email: asked, password };
}

export function authCommands(program: Command): void {
  program
    .command('login')
    .description('log in with e-mail and password; the session is kept (mode 0600) for the next commands')
    .option('--email <email>', 'the account e-mail (asked when not given)')
    .addHelpText(
      'after',
      '\nThe password is asked without echo at a terminal, or read from standard input:\n' +
        '  printf "%s\\n" "$PASSWORD" | maproom login --email ann@example.com',
    )
    .action(async (options: { email?: string }, command: Command) => {
      const globals = command.optsWithGlobals<GlobalOptions>();
      const out = new Output(globals.json === true);
      const { url } = resolveCredentials(globals);
      const api = new Api({ url });
      const body = await askLogin(options.email);
      const answer = await api.ok(api.client.POST('/api/auth/login', { body }));
      saveLogin({ url, token: answer.token, email: answer.user.email });
      out.result({ url, user: answer.user }, () => out.line(`Logged in to ${url} as ${answer.user.email}`));
    });

  program
    .command('logout')
    .description('end the stored session on the service and forget it')
    .action(async (_options: object, command: Command) => {
      const { out } = contextOf(command);
      const login = readLogin();
      if (!login) return out.result({ loggedOut: false }, () => out.line('Not logged in'));
      try {
        const api = new Api({ url: login.url, token: login.token });
        await api.ok(api.client.POST('/api/auth/logout'));
      } catch (error) {
        // An expired session or a service that is gone: the login is forgotten here all the same.
        if (!(error instanceof ApiError || error instanceof TypeError)) throw error;
        out.note(`The service did not end the session: ${error.message}`);
      } finally {
        forgetLogin();
      }
      out.result({ loggedOut: true, url: login.url }, () => out.line(`Logged out of ${login.url}`));
    });
}
