// The worker side of pool.ts: answers each task message with the named function's result (or its error), moving
// the buffers the function lists instead of copying them.
import { parentPort, type Transferable } from 'node:worker_threads';
import type { WorkerAnswer } from './pool.ts';

/** A task: its input in, its value out with the buffers to move back. */
export type TaskFunction = (input: never) => Promise<TaskAnswer>;
export interface TaskAnswer {
  value: unknown;
  transfer?: Transferable[];
}

export function serveTasks(tasks: Record<string, TaskFunction>): void {
  const port = parentPort;
  if (port === null) throw new Error('serveTasks runs in a worker thread');
  port.on('message', (message: { id: number; task: string; input: unknown }) => {
    const { id, task, input } = message;
    const run = tasks[task];
    const answer: Promise<TaskAnswer> =
      run === undefined
        ? Promise.reject(new Error(`no task "${task}" in this worker`))
        : (run as (input: unknown) => Promise<TaskAnswer>)(input);
    answer.then(
      ({ value, transfer }: TaskAnswer) =>
        port.postMessage({ id, ok: true, value } satisfies WorkerAnswer, transfer ?? []),
      (error: unknown) => {
        const e = error instanceof Error ? error : new Error(String(error));
        port.postMessage({
          id,
          ok: false,
          error: { name: e.name, message: e.message },
        } satisfies WorkerAnswer);
      },
    );
  });
}
