import * as z from "zod";
import { ERROR_CODES, type ErrorCode } from "../errors.ts";

/** The one error body, as a schema (for the OpenAPI document). */
export const ErrorBodySchema = z.object({
  error: z.object({
    code: z.enum(Object.keys(ERROR_CODES) as [ErrorCode, ...ErrorCode[]]),
    message: z.string(),
    field: z
      .string()
      .optional()
      .meta({ description: "The request field at fault, when one is (a dot path, or a header name)." }),
    details: z
      .record(z.string(), z.unknown())
      .optional()
      .meta({ description: "Context; validation errors list every issue in details.issues." }),
    documentation: z.string().optional().meta({ description: "Link to this code's entry in the API reference." }),
  }),
});

/** Health answer. */
export const HealthSchema = z.object({ status: z.literal("ok") });

/** The answer of `GET /`: what this is, and where to read about it and check on it. */
export const ServiceIndexSchema = z.object({
  name: z.literal("Event Service"),
  version: z.string().meta({ description: "The API's version, as in the OpenAPI document." }),
  docs: z.string().meta({ description: "The API reference page." }),
  openapi: z.string().meta({ description: "The OpenAPI document." }),
  health: z.string().meta({ description: "The health check." }),
});
export type ServiceIndex = z.output<typeof ServiceIndexSchema>;
