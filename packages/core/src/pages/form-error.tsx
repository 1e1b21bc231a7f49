import type { ServiceError } from "../errors.ts";

/**
 * A form's refusal in words, the field named in the form's own words (`words`, by the API's
 * field path) where the page has them: the API's message starts with the field's path, which
 * gives way to its name.
 */
export function FormError({
  id,
  error,
  words,
}: {
  id: string;
  error: ServiceError;
  words: Readonly<Record<string, string>>;
}) {
  const named = error.field !== undefined ? words[error.field] : undefined;
  const message =
    error.field !== undefined && error.message.startsWith(`${error.field}: `)
      ? error.message.slice(error.field.length + 2)
      : error.message;
  return (
    <p class="error" id={id} role="alert">
      {named !== undefined ? `${named}: ${message}` : message}
    </p>
  );
}
