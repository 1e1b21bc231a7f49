import { renderDocument } from "../_internal/html-document.tsx";
import { localDateTime } from "../_internal/local-time.ts";
import { ownEntry } from "../_internal/own-entry.ts";
import { ACTIVITY_KIND_WORDS, ACTIVITY_UNIT_WORDS, DATA_QUALITY_WORDS } from "../carbon/activity-words.ts";
import type { ActivityKind } from "../carbon/activity-kinds.ts";
import { ServiceError } from "../errors.ts";
import type { LinkContext } from "../operations/context.ts";
import { VENDOR_LINK_OPERATIONS } from "../operations/vendor-link.ts";
import { type Activity, KIND_QUALIFIERS } from "../resources/activity.ts";
import type { VendorRequest } from "../resources/vendor.ts";
import { type Choice, DATA_QUALITY_CHOICES, kindFields, type QualifierField, wordsOf } from "./activity-fields.ts";
import { field, type LinkPage, numberField, type PageState, runLinkOperation } from "./link-page.ts";
import { PAGE_STYLE } from "./page-style.ts";
import { FormError } from "./form-error.tsx";

/** What the page says after each of its forms succeeded (`?done=`): a fixed text per note, never the query's own. */
const DONE: Readonly<Record<string, string>> = {
  confirmed: "You confirmed the booking. Thank you!",
  declined: "You declined the booking. The organiser has been told.",
  recorded: "Recorded. It is in the event's footprint now.",
  updated: "Your record was changed.",
  deleted: "The record was deleted.",
};

const STATUS_TEXT: Readonly<Record<VendorRequest["status"], string>> = {
  requested: "Waiting for your answer",
  confirmed: "Confirmed",
  declined: "Declined",
  cancelled: "Cancelled by the organiser",
};

/** The records a page lists at most (the link's largest page); beyond them the page says how many it leaves out. */
const RECORDS_SHOWN = 100;

/** A form's fields by name, as typed or as stored. */
type Values = { get(name: string): string | null | undefined };

/** Everything the page is drawn from. */
interface VendorView {
  request: VendorRequest;
  /** The vendor's records (confirmed bookings only), oldest first, and how many there are in all. */
  records: Activity[];
  total: number;
  /** The link still takes records now (confirmed, within the event's data window). */
  open: boolean;
  state: PageState;
  /** The form the refused submission is shown beside (`record:catering`, `update:<id>`, `records`, `answer`); null: at the top. */
  errorAt: string | null;
}

const when = (view: VendorView, timestamp: string) => localDateTime(timestamp, view.request.event.timeZone);
const kindWords = (kind: ActivityKind) => ACTIVITY_KIND_WORDS[kind];
const recordName = (view: VendorView, record: Activity) =>
  `${kindWords(record.kind)} record of ${when(view, record.createdAt)}`;

/** Which form a refused submission came from: its error is shown there, with what was typed. */
function formSent(state: PageState): string | null {
  if (!state.error || !state.form) return null;
  const action = state.form.get("action");
  if (action === "record") return `record:${state.form.get("kind") ?? ""}`;
  if (action === "update") return `update:${state.form.get("activityId") ?? ""}`;
  if (action === "delete") return "records";
  if (action === "confirm" || action === "decline") return "answer";
  return null;
}

/** The record whose form is open: the one a refused change named, else `?edit=`. */
function editing(view: Omit<VendorView, "errorAt">): string | null {
  const sent = formSent(view.state);
  return sent?.startsWith("update:") ? sent.slice("update:".length) : view.state.query.get("edit");
}

/** Where a refusal is shown: beside the form it came from when the page draws that form again, else at the top. */
function errorPlace(view: Omit<VendorView, "errorAt">): string | null {
  const sent = formSent(view.state);
  if (sent === null) return null;
  const { request, open, records } = view;
  const collecting = request.status === "confirmed" && open;
  if (sent === "answer") return request.status === "requested" ? sent : null;
  if (sent === "records") return collecting ? sent : null;
  if (sent.startsWith("record:"))
    return collecting && request.dataRequested.some((kind) => sent === `record:${kind}`) ? sent : null;
  const edited = records.find((record) => `update:${record.id}` === sent);
  return collecting && edited && request.dataRequested.includes(edited.kind) ? sent : null;
}

/** The words of the field an error names, for "Quantity: must be above 0". */
const FIELD_WORDS: Readonly<Record<string, string>> = {
  quantity: "Quantity",
  unit: "Unit",
  dataQuality: "Data quality",
  note: "Note",
  message: "Message",
  kind: "Kind",
  source: "Source",
  country: "Country",
  fuel: "Fuel",
  mealType: "Meal type",
  material: "Material",
  recycledContent: "Recycled content",
  mode: "Mode",
  stream: "Stream",
};

function Notices({ view }: { view: VendorView }) {
  const { state } = view;
  const done = ownEntry(DONE, state.done);
  return (
    <>
      {done !== undefined && (
        <p class="notice" role="status">
          {done}
        </p>
      )}
      {state.error && view.errorAt === null && <FormError id="page-error" error={state.error} words={FIELD_WORDS} />}
    </>
  );
}

function Answer({ view }: { view: VendorView }) {
  const { state } = view;
  const refused = view.errorAt === "answer" ? state.error : null;
  return (
    <section aria-labelledby="answer-title">
      <h2 id="answer-title">Your answer</h2>
      <form method="post" aria-labelledby="answer-title">
        {refused && <FormError id="answer-error" error={refused} words={FIELD_WORDS} />}
        <label for="message">Message</label>
        <textarea
          id="message"
          name="message"
          maxLength={1000}
          aria-invalid={refused?.field === "message" ? "true" : undefined}
          aria-describedby={refused ? "answer-error" : undefined}
        >
          {state.form?.get("message") ?? ""}
        </textarea>
        <div class="actions">
          <button type="submit" name="action" value="confirm">
            Confirm
          </button>
          <button type="submit" name="action" value="decline" class="secondary">
            Decline
          </button>
        </div>
      </form>
    </section>
  );
}

/** A `<select>` of the API's values, with a blank first choice (`blank` its text) unless one must be chosen from the start. */
function Select(props: {
  id: string;
  name: string;
  choices: readonly Choice[];
  value: string | undefined;
  blank?: string;
  required?: boolean;
  invalid: boolean;
  describedBy?: string;
}) {
  return (
    <select
      id={props.id}
      name={props.name}
      required={props.required}
      aria-invalid={props.invalid ? "true" : undefined}
      aria-describedby={props.describedBy}
    >
      {props.blank !== undefined && (
        <option value="" selected={!props.value}>
          {props.blank}
        </option>
      )}
      {props.choices.map((choice) => (
        <option value={choice.value} selected={choice.value === props.value}>
          {choice.text}
        </option>
      ))}
    </select>
  );
}

/** A qualifier's blank choice: required ones ask for a choice, optional ones say what leaving it out means. */
function blankOf(kind: ActivityKind, qualifier: QualifierField, eventCountry: string): string {
  if (qualifier.required) return "Choose…";
  if (qualifier.name === "country") return `The event's country (${eventCountry})`;
  if (qualifier.name === "recycledContent") return "Not known (counted as virgin)";
  return kind === "waste" ? "Not known" : "None";
}

/**
 * A kind's form: "Quantity" with its unit (a "Unit" choice where the kind has several), each
 * qualifier as a choice of the API's values, "Data quality" and "Note". A new record's form
 * (`activity` absent) records; a record's own form changes it.
 */
function KindForm(props: {
  view: VendorView;
  kind: ActivityKind;
  values: Values;
  error: ServiceError | null;
  activity?: Activity;
}) {
  const { view, kind, values, error, activity } = props;
  const { units, qualifiers } = kindFields(kind);
  const prefix = activity ? "edit" : kind;
  const title = `${prefix}-title`;
  const errorId = `${prefix}-error`;
  const invalid = (name: string) => error?.field === name;
  const describedBy = (name: string, extra?: string) =>
    [extra, invalid(name) ? errorId : undefined].filter(Boolean).join(" ") || undefined;
  const only = units.length === 1 ? units[0]! : null;
  return (
    <form method="post" class="card" aria-labelledby={title}>
      <h3 id={title}>{activity ? `Change the ${recordName(view, activity)}` : kindWords(kind)}</h3>
      {error && <FormError id={errorId} error={error} words={FIELD_WORDS} />}
      <input type="hidden" name="action" value={activity ? "update" : "record"} />
      <input type="hidden" name="kind" value={kind} />
      {activity && <input type="hidden" name="activityId" value={activity.id} />}
      <label for={`${prefix}-quantity`}>Quantity</label>
      <div class="quantity">
        <input
          id={`${prefix}-quantity`}
          name="quantity"
          type="number"
          inputMode="decimal"
          step="any"
          required
          value={values.get("quantity") ?? ""}
          aria-invalid={invalid("quantity") ? "true" : undefined}
          aria-describedby={describedBy("quantity", only ? `${prefix}-unit-text` : undefined)}
        />
        {only && (
          <span class="unit" id={`${prefix}-unit-text`}>
            {only.text}
          </span>
        )}
      </div>
      {only ? (
        <input type="hidden" name="unit" value={only.value} />
      ) : (
        <>
          <label for={`${prefix}-unit`}>Unit</label>
          <Select
            id={`${prefix}-unit`}
            name="unit"
            choices={units}
            value={values.get("unit") ?? undefined}
            blank="Choose…"
            required
            invalid={invalid("unit")}
            describedBy={describedBy("unit")}
          />
        </>
      )}
      {qualifiers.map((qualifier) => (
        <>
          <label for={`${prefix}-${qualifier.name}`}>{qualifier.label}</label>
          <Select
            id={`${prefix}-${qualifier.name}`}
            name={qualifier.name}
            choices={qualifier.choices}
            value={values.get(qualifier.name) ?? undefined}
            blank={blankOf(kind, qualifier, view.request.event.location.country)}
            required={qualifier.required}
            invalid={invalid(qualifier.name)}
            describedBy={describedBy(qualifier.name)}
          />
        </>
      ))}
      <label for={`${prefix}-dataQuality`}>Data quality</label>
      <Select
        id={`${prefix}-dataQuality`}
        name="dataQuality"
        choices={DATA_QUALITY_CHOICES}
        value={values.get("dataQuality") ?? "measured"}
        invalid={invalid("dataQuality")}
        describedBy={describedBy("dataQuality", `${prefix}-dataQuality-hint`)}
      />
      <p class="muted hint" id={`${prefix}-dataQuality-hint`}>
        Measured: metered, weighed or invoiced. Estimated: worked out from plans or averages.
      </p>
      <label for={`${prefix}-note`}>Note</label>
      <textarea
        id={`${prefix}-note`}
        name="note"
        maxLength={1000}
        aria-invalid={invalid("note") ? "true" : undefined}
        aria-describedby={describedBy("note")}
      >
        {values.get("note") ?? ""}
      </textarea>
      <div class="actions">
        <button type="submit">{activity ? "Save" : "Record"}</button>
        {activity && (
          <a class="button secondary" href="?">
            Cancel
          </a>
        )}
      </div>
    </form>
  );
}

/** A stored record as its form's fields. */
function valuesOfRecord(record: Activity): Values {
  const values = new Map<string, string>([
    ["quantity", String(record.quantity)],
    ["unit", record.unit],
    ["dataQuality", record.dataQuality],
    ["note", record.note ?? ""],
  ]);
  for (const name of KIND_QUALIFIERS[record.kind]) {
    const value = record[name];
    if (value !== undefined && value !== null) values.set(name, String(value));
  }
  return values;
}

const NO_VALUES: Values = new Map();

/** The forms for reporting: one per requested kind, and the record being changed (`?edit=`) above them. */
function DataForms({ view }: { view: VendorView }) {
  const { request, state, records } = view;
  const refused = view.errorAt;
  const editId = editing(view);
  const edited = editId ? records.find((record) => record.id === editId) : undefined;
  return (
    <section aria-labelledby="data-title">
      <h2 id="data-title">Report your data</h2>
      {editId && !edited && <p class="error">That record is not among yours any more: it may have been deleted.</p>}
      {edited && !request.dataRequested.includes(edited.kind) && (
        <p class="error">
          The organiser no longer asks for {kindWords(edited.kind).toLowerCase()} data: this record can be deleted, not
          changed.
        </p>
      )}
      {edited && request.dataRequested.includes(edited.kind) && (
        <KindForm
          view={view}
          kind={edited.kind}
          activity={edited}
          values={refused === `update:${edited.id}` ? state.form! : valuesOfRecord(edited)}
          error={refused === `update:${edited.id}` ? state.error : null}
        />
      )}
      <p class="muted">
        One form per kind of data the organiser asks for. Each record goes into the event's footprint at once; you can
        change or delete it below until {when(view, request.dataAcceptedUntil)}.
      </p>
      {request.dataRequested.map((kind) => {
        const mine = refused === `record:${kind}`;
        return (
          <KindForm view={view} kind={kind} values={mine ? state.form! : NO_VALUES} error={mine ? state.error : null} />
        );
      })}
    </section>
  );
}

/** What a record says: how much of what, its qualifiers and quality in words, its emissions. */
function recordSummary(record: Activity): string {
  const unit = ACTIVITY_UNIT_WORDS[record.unit];
  const qualifiers = KIND_QUALIFIERS[record.kind]
    .map((name) => {
      const value = record[name];
      if (value === undefined || value === null) return null;
      return `${kindFields(record.kind).qualifiers.find((q) => q.name === name)!.label}: ${wordsOf(name, String(value))}`;
    })
    .filter((text) => text !== null);
  return [`${record.quantity.toLocaleString("en-GB")} ${unit}`, ...qualifiers].join(", ");
}

function Records({ view }: { view: VendorView }) {
  const { records, total, state, open, request } = view;
  const refused = view.errorAt === "records" ? state.error : null;
  return (
    <section aria-labelledby="records-title">
      <h2 id="records-title">Your records</h2>
      {refused && <FormError id="records-error" error={refused} words={FIELD_WORDS} />}
      {records.length === 0 && <p class="muted">No records yet.</p>}
      {total > records.length && (
        <p class="muted">
          Showing the first {records.length} of {total} records.
        </p>
      )}
      <ul class="records">
        {records.map((record) => {
          const name = recordName(view, record);
          const editable = open && request.dataRequested.includes(record.kind);
          return (
            <li>
              <h3>{kindWords(record.kind)}</h3>
              <p>{recordSummary(record)}</p>
              <dl>
                <dt>Data quality</dt>
                <dd>{DATA_QUALITY_WORDS[record.dataQuality]}</dd>
                <dt>Emissions</dt>
                <dd>
                  {record.emissionsKg === null
                    ? "Not priced by the event's factor set"
                    : `${record.emissionsKg.toLocaleString("en-GB", { maximumFractionDigits: 1 })} kg CO2e`}
                </dd>
                <dt>Recorded</dt>
                <dd>{when(view, record.createdAt)}</dd>
                {record.note !== null && (
                  <>
                    <dt>Note</dt>
                    <dd>{record.note}</dd>
                  </>
                )}
              </dl>
              {open && (
                <div class="actions">
                  {editable ? (
                    <a
                      class="button secondary"
                      href={`?edit=${encodeURIComponent(record.id)}`}
                      aria-label={`Edit ${name}`}
                    >
                      Edit
                    </a>
                  ) : (
                    <p class="muted">No longer requested by the organiser: it can be deleted, not changed.</p>
                  )}
                  <form method="post">
                    <input type="hidden" name="action" value="delete" />
                    <input type="hidden" name="activityId" value={record.id} />
                    <button type="submit" class="danger" aria-label={`Delete ${name}`}>
                      Delete
                    </button>
                  </form>
                </div>
              )}
            </li>
          );
        })}
      </ul>
    </section>
  );
}

/** What the vendor can still do once the booking is no longer waiting for an answer. */
function Next({ view }: { view: VendorView }) {
  const { request, open } = view;
  if (request.status === "declined")
    return (
      <p class="notice">
        You declined this booking, so there is nothing more to do here. If that was a mistake, ask the organiser to book
        you again: they will send a new link.
      </p>
    );
  if (request.status === "cancelled")
    return <p class="notice">The organiser cancelled this booking. There is nothing more to do here.</p>;
  if (request.status !== "confirmed") return null;
  if (!open)
    return (
      <p class="notice">
        The event's records closed on {when(view, request.dataAcceptedUntil)}. Your records are below; to correct one
        now, ask the organiser.
      </p>
    );
  if (request.dataRequested.length === 0)
    return (
      <p class="notice">
        The organiser asks for no data through this link, so there is nothing more to do here. Thank you!
      </p>
    );
  return null;
}

/** The vendor's page at its link: what is asked, for which event, the vendor's answer, its data and its records. */
export function renderVendorPage(drawn: Omit<VendorView, "errorAt">): string {
  const view: VendorView = { ...drawn, errorAt: errorPlace(drawn) };
  const { request, open } = view;
  const { event } = request;
  const asked = request.dataRequested.map(kindWords).join(", ");
  return renderDocument({
    title: `${event.name}: booking for ${request.vendor.name}`,
    style: PAGE_STYLE,
    children: (
      <main>
        <Notices view={view} />
        <h1>{event.name}</h1>
        <section aria-labelledby="booking-title">
          <h2 id="booking-title">Booking for {request.vendor.name}</h2>
          <dl>
            <dt>Starts</dt>
            <dd>{when(view, event.startDate)}</dd>
            <dt>Ends</dt>
            <dd>{when(view, event.endDate)}</dd>
            <dt>Where</dt>
            <dd>
              {event.location.city}, {event.location.country}
            </dd>
            <dt>Services</dt>
            <dd>{request.services}</dd>
            <dt>Status</dt>
            <dd>
              <span class="status">{STATUS_TEXT[request.status]}</span>
            </dd>
            <dt>Data asked for</dt>
            <dd>{asked === "" ? "None" : asked}</dd>
            {asked !== "" && (
              <>
                <dt>Data accepted until</dt>
                <dd>{when(view, request.dataAcceptedUntil)}</dd>
              </>
            )}
          </dl>
        </section>
        {request.status === "requested" && <Answer view={view} />}
        <Next view={view} />
        {request.status === "confirmed" && open && request.dataRequested.length > 0 && <DataForms view={view} />}
        {request.status === "confirmed" && (view.records.length > 0 || request.dataRequested.length > 0) && (
          <Records view={view} />
        )}
      </main>
    ),
  });
}

const run = (link: LinkContext, id: string, params: Record<string, string>, body?: unknown) =>
  runLinkOperation(VENDOR_LINK_OPERATIONS, id, link, params, body);

/** The vendor's first records, up to {@link RECORDS_SHOWN}, and how many it has. */
async function recordsOf(link: LinkContext): Promise<{ records: Activity[]; total: number }> {
  const page = (await run(link, "link.activities.list", {}, { page: "1", limit: String(RECORDS_SHOWN) })) as {
    activities: Activity[];
    pagination: { total: number };
  };
  return { records: page.activities, total: page.pagination.total };
}

/**
 * A kind's form as the body of the link's JSON operations: what the person chose, each field
 * as typed (a word where a number or yes/no belongs is left for the schema to refuse, naming the
 * field). A change (`update`) clears a note or waste material left blank; a new record leaves it out.
 */
function activityBody(form: URLSearchParams, update: boolean): Record<string, unknown> {
  const kind = field(form, "kind");
  const body: Record<string, unknown> = {
    kind,
    quantity: numberField(form, "quantity"),
    unit: field(form, "unit"),
    dataQuality: field(form, "dataQuality"),
    note: field(form, "note") ?? (update ? null : undefined),
  };
  // The kind as sent: only the table's own kinds have qualifiers ("constructor" is no kind, whatever `in` says).
  const qualifiers: readonly string[] = ownEntry(KIND_QUALIFIERS, kind) ?? [];
  for (const name of qualifiers) {
    const value = field(form, name);
    if (name === "recycledContent") body[name] = value === "true" ? true : value === "false" ? false : value;
    else if (name === "material" && kind === "waste" && update) body[name] = value ?? null;
    else body[name] = value;
  }
  return Object.fromEntries(Object.entries(body).filter(([, value]) => value !== undefined));
}

/** The `activityId` a record's form names, or `400` naming it. */
function activityIdOf(form: URLSearchParams): string {
  const id = field(form, "activityId");
  if (id === undefined)
    throw new ServiceError("INVALID_REQUEST", { message: "activityId: required", field: "activityId" });
  return id;
}

/**
 * Whether a record the link answered `404` for is gone while the link still opens (it was
 * deleted, in another tab say): the page says so instead of treating the link as dead.
 */
async function recordGone(link: LinkContext, thrown: unknown): Promise<boolean> {
  if (!ServiceError.is(thrown) || thrown.code !== "NOT_FOUND") return false;
  await run(link, "link.view", {});
  return true;
}

/** The vendor's page and its forms, over the operations of the vendor's link. */
/**
 * A refusal as the page shows it: a form sent once the event's records closed says when they
 * closed in the event's time zone, as the page does, where the API's message gives the time in UTC.
 */
function refusalInWords(error: ServiceError, request: VendorRequest): ServiceError {
  const until = error.details?.dataAcceptedUntil;
  if (typeof until !== "string") return error;
  return new ServiceError(error.code, {
    message: `The event's records closed on ${localDateTime(until, request.event.timeZone)}: no record can be made, changed or deleted here any more.`,
    ...(error.field !== undefined && { field: error.field }),
    details: error.details,
  });
}

export const VENDOR_PAGE: LinkPage<LinkContext> = {
  async render(link, state) {
    const request = (await run(link, "link.view", {})) as VendorRequest;
    const { records, total } = request.status === "confirmed" ? await recordsOf(link) : { records: [], total: 0 };
    const open = request.status === "confirmed" && link.now() <= request.dataAcceptedUntil;
    const error = state.error && refusalInWords(state.error, request);
    return renderVendorPage({ request, records, total, open, state: { ...state, error } });
  },
  actions: {
    async confirm(link, form) {
      await run(link, "link.confirm", {}, { message: field(form, "message") });
      return "confirmed";
    },
    async decline(link, form) {
      await run(link, "link.decline", {}, { message: field(form, "message") });
      return "declined";
    },
    async record(link, form) {
      await run(link, "link.activities.create", {}, activityBody(form, false));
      return "recorded";
    },
    async update(link, form) {
      const activityId = activityIdOf(form);
      try {
        await run(link, "link.activities.update", { activityId }, activityBody(form, true));
      } catch (thrown) {
        if (!(await recordGone(link, thrown))) throw thrown;
        throw new ServiceError("INVALID_REQUEST", {
          message: "This record no longer exists: it may have been deleted.",
          field: "activityId",
        });
      }
      return "updated";
    },
    async delete(link, form) {
      const activityId = activityIdOf(form);
      try {
        await run(link, "link.activities.delete", { activityId }, undefined);
      } catch (thrown) {
        // Deleted already (a second click, another tab): what was asked is done.
        if (!(await recordGone(link, thrown))) throw thrown;
      }
      return "deleted";
    },
  },
};
