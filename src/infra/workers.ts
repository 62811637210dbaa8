import { Worker, type ResourceLimits } from 'node:worker_threads';

/**
 * Starts a worker thread on a module of ours. Built, the module is a `.js` file the worker
 * loads directly; run from source (tests, `npm run dev`), it is TypeScript, which the worker
 * loads through tsx's loader, registered in the worker first.
 */
export function startWorker(moduleUrl: URL, options: { workerData: unknown; resourceLimits?: ResourceLimits }): Worker {
  if (moduleUrl.pathname.endsWith('.ts')) {
    const boot = `import('tsx/esm/api').then(({ register }) => { register(); return import(${JSON.stringify(moduleUrl.href)}); })`;
    return new Worker(boot, { ...options, eval: true, execArgv: [] });
  }
  return new Worker(moduleUrl, { ...options, execArgv: [] });
}

/** The URL of a sibling module, `.ts` when the caller runs from source, `.js` when built. */
export function siblingModule(callerUrl: string, baseName: string): URL {
  return new URL(`./${baseName}${callerUrl.endsWith('.ts') ? '.ts' : '.js'}`, callerUrl);
}
