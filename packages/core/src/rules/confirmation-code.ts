/** A confirmation code in the form it is stored and shown in: `EVT-7KQ2-M9XH`. */
const STORED_FORM = /^EVT([0-9A-Z]{4})([0-9A-Z]{4})$/;
/** What a person may type between a code's characters: spaces of any kind and dashes (a phone may make `-` an en or em dash). */
const SEPARATORS = /[\s\-\u2010-\u2015\u2212]+/g;

/** Whether `text` is a confirmation code in its stored form (`typedConfirmationCode`'s answer for a code). */
export function isStoredConfirmationCode(text: string): boolean {
  return /^EVT-[0-9A-Z]{4}-[0-9A-Z]{4}$/.test(text);
}

/**
 * A confirmation code as a person typed or scanned it, in its stored form: case, spaces and
 * dashes do not count (`evt 7kq2 m9xh`, `EVT7KQ2M9XH` and ` evt-7kq2-m9xh ` are all
 * `EVT-7KQ2-M9XH`). Text that is not a code comes back without them, in upper case, and so
 * matches no code.
 */
export function typedConfirmationCode(typed: string): string {
  const bare = typed.replace(SEPARATORS, "").toUpperCase();
  const parts = STORED_FORM.exec(bare);
  return parts ? `EVT-${parts[1]}-${parts[2]}` : bare;
}
