// The run's final tables: printed, and kept as text for --out (a markdown file for
// docs/benchmarks/, each table in a fenced block exactly as printed).
import fs from "node:fs";

export class Report {
  private readonly parts: string[] = [];

  heading(title: string) {
    console.log(`\n== ${title}`);
    this.parts.push(`\n## ${title}\n`);
  }

  text(line: string) {
    console.log(line);
    this.parts.push(line);
  }

  table(header: string[], rows: string[][], leftColumns = 1) {
    const all = [header, ...rows];
    const widths = header.map((_, column) =>
      Math.max(...all.map((row) => (row[column] ?? "").length)),
    );
    const line = (row: string[]) =>
      row
        .map((cell = "", column) =>
          column < leftColumns ? cell.padEnd(widths[column]!) : cell.padStart(widths[column]!),
        )
        .join("  ")
        .trimEnd();
    const text = [line(header), widths.map((w) => "-".repeat(w)).join("  "), ...rows.map(line)];
    console.log(text.join("\n"));
    this.parts.push("```", ...text, "```");
  }

  write(file: string, title: string, preamble: string[]) {
    fs.writeFileSync(file, [`# ${title}`, "", ...preamble, ...this.parts, ""].join("\n"));
  }
}
