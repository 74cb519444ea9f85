// Stylesheets imported from TypeScript are Vite's to bundle; to the type-checker they are modules of no value.
declare module "*.css";
