// The examples are documentation, so they must compile: every example under the strict settings
// of the repository, and the Angular one against the installed @angular/core with the settings an
// Angular application uses.
import ts from "typescript";
import { fileURLToPath } from "node:url";

function diagnosticsOf(tsconfig: string): string[] {
  const path = fileURLToPath(new URL(tsconfig, import.meta.url));
  const read = ts.readConfigFile(path, (file) => ts.sys.readFile(file));
  if (read.error) return [ts.flattenDiagnosticMessageText(read.error.messageText, "\n")];
  const parsed = ts.parseJsonConfigFileContent(read.config, ts.sys, fileURLToPath(new URL(".", `file://${path}`)));
  const program = ts.createProgram({ rootNames: parsed.fileNames, options: parsed.options });
  // Only the examples' own diagnostics: the library has its own type-check (`npm run typecheck`),
  // and a library error still shows up here wherever an example's use of the API stops compiling.
  const examplesDir = fileURLToPath(new URL("../../examples/", import.meta.url));
  const own = (d: ts.Diagnostic): boolean => d.file === undefined || d.file.fileName.startsWith(examplesDir);
  return [...parsed.errors, ...ts.getPreEmitDiagnostics(program).filter(own)].map((d) => {
    const where = d.file && d.start !== undefined ? `${d.file.fileName}:${d.file.getLineAndCharacterOfPosition(d.start).line + 1}: ` : "";
    return `${where}${ts.flattenDiagnosticMessageText(d.messageText, "\n")}`;
  });
}

describe("examples type-check", () => {
  it("examples/tsconfig.json (demo, script, rx, browser) has no diagnostics", () => {
    expect(diagnosticsOf("../../examples/tsconfig.json")).toEqual([]);
  }, 60_000);

  it("examples/ui/tsconfig.json (TSX, the react subpath) has no diagnostics", () => {
    expect(diagnosticsOf("../../examples/ui/tsconfig.json")).toEqual([]);
  }, 60_000);

  it("examples/angular/tsconfig.json has no diagnostics against @angular/core", () => {
    expect(diagnosticsOf("../../examples/angular/tsconfig.json")).toEqual([]);
  }, 60_000);
});
