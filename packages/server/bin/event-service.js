#!/usr/bin/env node
// A committed entry point, so npm can link the `event-service` bin at install time, before
// `prepare` has built dist/.
import "../dist/cli.js";
