// Vite imports stylesheets as modules (xterm.js ships its own).
declare module "*.css";
