import * as z from "zod";
import { numberParam } from "../resources/common.ts";

/** The query of `GET /analytics/emission-factors`: the year whose set to answer (default: the latest set). */
export const EmissionFactorsQuery = z.strictObject({
  year: numberParam("integer", 1000, 9999).optional().meta({
    description:
      "A year: the set that prices an event starting in it (that year's set, else the latest earlier one, else the earliest). Default: the latest set",
  }),
});
export type EmissionFactorsQuery = z.output<typeof EmissionFactorsQuery>;
