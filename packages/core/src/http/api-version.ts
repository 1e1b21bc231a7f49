/** The version of the API the OpenAPI document describes (also in the answer of `GET /`). */
export const API_VERSION = "1.0.0";
