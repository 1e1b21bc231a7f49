import * as z from "zod";
import { COUNTRY_CODES } from "../_internal/country-codes.ts";
import type { ActivityKind } from "../carbon/activity-kinds.ts";
import {
  ACTIVITY_UNIT_WORDS,
  DATA_QUALITY_WORDS,
  ELECTRICITY_SOURCE_WORDS,
  FREIGHT_MODE_WORDS,
  FUEL_WORDS,
  MATERIAL_WORDS,
  MEAL_TYPE_WORDS,
  QUALIFIER_WORDS,
  TRAVEL_MODE_WORDS,
  WASTE_STREAM_WORDS,
} from "../carbon/activity-words.ts";
import { KIND_QUALIFIERS, VendorActivityInput } from "../resources/activity.ts";

/** One choice of a form: the API's value and its text. */
export interface Choice {
  value: string;
  text: string;
}

/** A qualifier of a kind as a form asks for it: its field, label, whether the API requires it, and every value it takes. */
export interface QualifierField {
  name: keyof typeof QUALIFIER_WORDS;
  label: string;
  required: boolean;
  choices: Choice[];
}

/** What a kind's form asks: its units (a choice where there are several) and its qualifiers. */
export interface KindFields {
  units: Choice[];
  qualifiers: QualifierField[];
}

const regionNames = new Intl.DisplayNames("en", { type: "region" });

/** The words of one value of a qualifier: a country's English name beside its code; a value without words as itself. */
export function wordsOf(name: QualifierField["name"], value: string): string {
  const words: Record<string, Readonly<Record<string, string>>> = {
    source: ELECTRICITY_SOURCE_WORDS,
    fuel: FUEL_WORDS,
    mealType: MEAL_TYPE_WORDS,
    material: MATERIAL_WORDS,
    stream: WASTE_STREAM_WORDS,
    mode: { ...FREIGHT_MODE_WORDS, ...TRAVEL_MODE_WORDS },
    recycledContent: { true: "Yes, recycled", false: "No, virgin material" },
  };
  if (name === "country") return `${regionNames.of(value) ?? value} (${value})`;
  return words[name]?.[value] ?? value;
}

/** The values a field's schema takes, read from the schema itself, so a form offers exactly what the API accepts. */
function valuesOf(schema: z.ZodType): string[] | null {
  if (schema instanceof z.ZodOptional || schema instanceof z.ZodNullable) return valuesOf(schema.unwrap() as z.ZodType);
  if (schema instanceof z.ZodEnum) return schema.options.map(String);
  if (schema instanceof z.ZodLiteral) return [...schema.values].map(String);
  if (schema instanceof z.ZodBoolean) return ["true", "false"];
  return null;
}

/** Countries by their names, as a person looks for one; every other choice in the API's order. */
function sortedChoices(name: QualifierField["name"], choices: Choice[]): Choice[] {
  return name === "country" ? choices.sort((a, b) => a.text.localeCompare(b.text, "en")) : choices;
}

const byKind = new Map<ActivityKind, KindFields>();

/**
 * The fields of a kind's form, from the vendor link's own body schema: the units and each
 * qualifier's values are the schema's (a country, a refined text, takes the ISO codes the schema
 * checks against), and a qualifier is required where the schema refuses it missing.
 */
export function kindFields(kind: ActivityKind): KindFields {
  let fields = byKind.get(kind);
  if (fields) return fields;
  const option = VendorActivityInput.options.find((candidate) => candidate.shape.kind.value === kind);
  if (!option) throw new Error(`No activity schema of kind ${kind}`);
  const shape = option.shape as unknown as Record<string, z.ZodType>;
  const units = (valuesOf(shape.unit!) ?? []).map((value) => ({
    value,
    text: ACTIVITY_UNIT_WORDS[value as keyof typeof ACTIVITY_UNIT_WORDS] ?? value,
  }));
  const qualifiers = KIND_QUALIFIERS[kind].map((name): QualifierField => {
    const schema = shape[name]!;
    const values = valuesOf(schema) ?? [...COUNTRY_CODES];
    return {
      name,
      label: QUALIFIER_WORDS[name],
      required: !schema.safeParse(undefined).success,
      choices: sortedChoices(
        name,
        values.map((value) => ({ value, text: wordsOf(name, value) })),
      ),
    };
  });
  fields = { units, qualifiers };
  byKind.set(kind, fields);
  return fields;
}

/** "Data quality": the API's values, measured first (its default). */
export const DATA_QUALITY_CHOICES: readonly Choice[] = Object.entries(DATA_QUALITY_WORDS).map(([value, text]) => ({
  value,
  text,
}));
