// An answer other than success, thrown by handlers and turned into the error object {message, errors?}.

export type FieldErrors = Record<string, string[]>;

export class HttpError extends Error {
  override readonly name = 'HttpError';
  constructor(
    readonly status: number,
    message: string,
    readonly errors?: FieldErrors,
    readonly headers: Readonly<Record<string, string>> = {},
  ) {
    super(message);
  }

  body(): { message: string; errors?: FieldErrors } {
    return this.errors ? { message: this.message, errors: this.errors } : { message: this.message };
  }
}

export const notFound = (): HttpError => new HttpError(404, 'Not found.');

/** Collects per-field problems, then throws one 422 whose message names the first field (as Laravel does). */
export class Validation {
  readonly errors: FieldErrors = {};

  add(field: string, message: string): void {
    this.errors[field] ??= [];
    this.errors[field].push(message);
  }

  get ok(): boolean {
    return Object.keys(this.errors).length === 0;
  }

  throwIfAny(): void {
    const fields = Object.keys(this.errors);
    if (fields.length === 0) return;
    const first = this.errors[fields[0]!]![0]!;
    const more = fields.length - 1;
    throw new HttpError(422, more > 0 ? `${first} (and ${more} more error${more > 1 ? 's' : ''})` : first, this.errors);
  }
}

export function invalid(field: string, message: string): HttpError {
  const v = new Validation();
  v.add(field, message);
  return new HttpError(422, message, v.errors);
}
