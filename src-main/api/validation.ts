// The API parses request bodies with the same zod-to-validation_error helpers the services and the CLI use.
export { parseOrThrow, zodDetails } from '../validation.ts';
