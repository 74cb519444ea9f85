// How an application provides the service's configuration (bootstrapApplication(App, appConfig)).
import type { ApplicationConfig } from "@angular/core";
import { SANDBOX_AGENT_CONFIG } from "./agent-session.service.js";

export const appConfig: ApplicationConfig = {
  providers: [{ provide: SANDBOX_AGENT_CONFIG, useValue: { baseUrl: "http://127.0.0.1:2468", agent: "claude" } }],
};
