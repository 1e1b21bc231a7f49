import type { ServiceError } from "../errors.ts";
import { parseOperationInput, type AnyOperation } from "../operations/define.ts";

/** What a page behind a link is drawn with besides its link: what the last form did, or why it was refused. */
export interface PageState {
  /** The note of a form that just succeeded (`?done=confirmed` after the redirect); one of the page's own names. */
  done: string | null;
  /** The refusal of the form just sent, shown beside it (the page is drawn again with the request's status). */
  error: ServiceError | null;
  /** The fields of the refused form, so that the person need not type them again. */
  form: URLSearchParams | null;
  /**
   * What a form just did, drawn at once in the answer to its POST (`{ show }`): a door's scan,
   * whose result names a person and so never goes into a redirect's URL; `null` otherwise.
   */
  shown: unknown;
  /** The query of the page's URL (`?edit=<id>` opens a record's form): what a link on the page asked for. */
  query: URLSearchParams;
}

/**
 * What a form's success leads to: the page again with a note (`?done=<note>`), or another
 * address altogether (`{ redirect }`: an absolute URL the link's operation gave, such as the
 * payment page of a Stripe Checkout Session), or the page drawn at once with what the form did
 * (`{ show }`, status 200, no redirect: for a form whose sending twice changes nothing more).
 */
export type PageOutcome = string | { redirect: string } | { show: unknown };

/** A form's handling: runs what it asks through the link's operations and says where the browser goes next. */
export type PageAction<C> = (context: C, form: URLSearchParams) => Promise<PageOutcome>;

/**
 * A page at a link's URL, beside its JSON twin: a browser (`Accept` preferring `text/html`)
 * gets `render`, and each `<form method="post">` posts to the same URL with a field `action`
 * naming one of `actions`; a success redirects back to the page (POST, redirect, GET), so the
 * page works with JavaScript off and a reload never sends a form twice.
 */
export interface LinkPage<C> {
  render(context: C, state: PageState): Promise<string>;
  actions: Readonly<Record<string, PageAction<C>>>;
  /** The page's own script, served by the service; absent for a page that has none. */
  script?: string;
  /** Origins a form's answer may redirect the browser to (its CSP's `form-action`); none but the service's by default. */
  formTargets?: readonly string[];
}

/**
 * Runs a link's operation from a page's form exactly as its JSON route runs it: the body is
 * validated by the operation's own schema, so a record made on the page is the one the API makes.
 */
export function runLinkOperation<C>(
  operations: readonly AnyOperation<C>[],
  id: string,
  context: C,
  params: Record<string, string>,
  body?: unknown,
): Promise<unknown> {
  const operation = operations.find((candidate) => candidate.id === id);
  if (!operation) throw new Error(`No link operation ${id}`);
  const input = parseOperationInput(operation, params, body, body);
  return Promise.resolve(operation.run(context, input));
}

/** A form field's text, trimmed; `undefined` when absent or empty, so an optional field left blank is left out. */
export function field(form: URLSearchParams, name: string): string | undefined {
  const value = form.get(name)?.trim();
  return value === undefined || value === "" ? undefined : value;
}

/**
 * A form field as a number when it reads as one (`"120"`, `"2.5"`, `"2,5"`), else its text, so
 * that the operation's schema refuses it with its own message naming the field.
 */
export function numberField(form: URLSearchParams, name: string): number | string | undefined {
  const text = field(form, name);
  if (text === undefined) return undefined;
  const value = Number(text.replace(",", "."));
  return Number.isFinite(value) ? value : text;
}
