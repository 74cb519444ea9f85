// The UI example: one app on the React bindings (`sandbox-agent-rx/react`) for working with an agent
// in a sandbox: sessions, the conversation, tool cards, permissions, the terminal, files and logs.
// `?demo=N` renders a synthetic transcript of N entries instead of connecting (the virtualised list).
import { StrictMode } from "react";
import { createRoot } from "react-dom/client";
import { App } from "./App.js";
import { DemoTranscript } from "./DemoTranscript.js";

const demo = Number(new URLSearchParams(location.search).get("demo") ?? 0);

createRoot(document.getElementById("root") as HTMLElement).render(
  <StrictMode>{demo > 0 ? <DemoTranscript size={demo} /> : <App />}</StrictMode>,
);
