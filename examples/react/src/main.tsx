// The React example: the SDK's transcript model through the headless hooks of sandbox-agent-rx/react,
// rendered with a virtualised list (@tanstack/react-virtual), tool cards with diffs, a permission card,
// a composer and a connection badge. `?demo=N` renders a synthetic transcript of N entries instead of
// connecting (to try the virtualisation without a server).
import { StrictMode } from "react";
import { createRoot } from "react-dom/client";
import { App } from "./App.js";

createRoot(document.getElementById("root") as HTMLElement).render(
  <StrictMode>
    <App />
  </StrictMode>,
);
