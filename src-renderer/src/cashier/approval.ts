// Actions the service may refuse to a caixa without a supervisor (cancel, reprint, …): the call is made, and
// a 403 `autorizacao_necessaria` is answered by the supervisor prompt, then the same call is made once more
// carrying the approval. The prompt is registered by the operator screens; without one the refusal shows.
import { ApiRequestError, type ApiClient } from '../../../src-shared/contracts/api-client.ts';

/** Asks a supervisor for `acao`; resolves to the one-time approval token, or null when cancelled. */
export type ApprovalPrompt = (acao: string, reason: string) => Promise<string | null>;

let prompt: ApprovalPrompt | null = null;

/** The operator screens register their supervisor prompt here; returns the unregister for their unmount. */
export function setApprovalPrompt(next: ApprovalPrompt): () => void {
  prompt = next;
  return () => {
    if (prompt === next) prompt = null;
  };
}

export function needsApproval(error: unknown): error is ApiRequestError {
  // Compared as text: the code joins the shared list of error codes with the operators' part.
  const code: string = error instanceof ApiRequestError ? error.body.error : '';
  return error instanceof ApiRequestError && error.status === 403 && code === 'autorizacao_necessaria';
}

/** Runs `call`; on a refusal asking for approval, prompts and retries with the approval once. */
export async function withApproval<T>(
  api: ApiClient,
  acao: string,
  call: (client: ApiClient) => Promise<T>,
): Promise<T> {
  try {
    return await call(api);
  } catch (error) {
    if (!needsApproval(error) || prompt === null) throw error;
    const token = await prompt(acao, error.body.message);
    if (token === null) throw error;
    return call(api.withSupervisor(token));
  }
}
