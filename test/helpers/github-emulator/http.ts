/** GitHub's error bodies and the small vocabulary the route handlers answer with. */

const DOCS = 'https://docs.github.com/rest';

export interface Answer {
  status: number;
  body: unknown;
  headers?: Record<string, string>;
}

/** Thrown by a handler to answer with GitHub's error shape: `{ message, errors?, documentation_url, status }`. */
export class ApiError extends Error {
  constructor(
    readonly status: number,
    message: string,
    readonly errors?: Record<string, unknown>[],
  ) {
    super(message);
  }

  answer(): Answer {
    return { status: this.status, body: errorBody(this.status, this.message, this.errors) };
  }
}

export function errorBody(
  status: number,
  message: string,
  errors?: Record<string, unknown>[],
): Record<string, unknown> {
  return { message, ...(errors ? { errors } : {}), documentation_url: DOCS, status: String(status) };
}

export const notFound = () => new ApiError(404, 'Not Found');
/** A 422 about one thing, the way the git data API words it: `Reference already exists`. */
export const unprocessable = (message: string) => new ApiError(422, message);
/** A 422 about fields, the way the pulls API words it: `Validation Failed` with `errors`. */
export const validationFailed = (...errors: Record<string, unknown>[]) =>
  new ApiError(422, 'Validation Failed', errors);

export const ok = (body: unknown): Answer => ({ status: 200, body });
export const created = (body: unknown): Answer => ({ status: 201, body });

export type Json = Record<string, unknown>;

/** The body as an object; a handler that needs fields gets a 400 like GitHub's for anything else. */
export function objectBody(body: unknown): Json {
  if (typeof body !== 'object' || body === null || Array.isArray(body))
    throw new ApiError(400, 'Problems parsing JSON');
  return body as Json;
}

export const str = (value: unknown): string | undefined => (typeof value === 'string' ? value : undefined);
