// How an application provides the service's configuration (bootstrapApplication(AgentSessionComponent,
// appConfig)). The component reads only signals, so the app runs without zone.js.
import { provideZonelessChangeDetection, type ApplicationConfig } from "@angular/core";
import { SANDBOX_AGENT_CONFIG } from "./agent-session.service.js";

export const appConfig: ApplicationConfig = {
  providers: [
    provideZonelessChangeDetection(),
    { provide: SANDBOX_AGENT_CONFIG, useValue: { baseUrl: "http://127.0.0.1:2468", agent: "claude" } },
  ],
};
