// Turns zod results into the seed's validation_error with every faulty field at once. A domain error, so
// that services and the CLI parse input the same way the API does without importing api/.
import type { z } from 'zod';
import { formatFieldPath, type ErrorDetail } from '../src-shared/contracts/errors.ts';
import { validationError } from './errors.ts';

export function zodDetails(error: z.ZodError): ErrorDetail[] {
  return error.issues.map((issue) => ({ field: formatFieldPath(issue.path), error: issue.message }));
}

/**
 * Parses or throws a 400 listing every problem; `prefix` roots the paths. `extraChecks` look at the raw
 * input for faults the schema cannot see (e.g. an unknown IBGE code) so they are reported in the same answer.
 */
export function parseOrThrow<S extends z.ZodType>(
  schema: S,
  input: unknown,
  prefix: string[] = [],
  extraChecks?: (raw: unknown) => ErrorDetail[],
): z.output<S> {
  if (input === undefined) {
    throw validationError([
      { field: 'body', error: 'a JSON body with Content-Type application/json is required' },
    ]);
  }
  const result = schema.safeParse(input);
  const details: ErrorDetail[] = result.success
    ? []
    : result.error.issues.map((issue) => ({
        field: formatFieldPath([...prefix, ...issue.path]),
        error: issue.message,
      }));
  for (const extra of extraChecks?.(input) ?? []) {
    if (!details.some((d) => d.field === extra.field)) details.push(extra);
  }
  if (details.length > 0 || !result.success) throw validationError(details);
  return result.data;
}
