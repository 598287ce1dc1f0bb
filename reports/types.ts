import type { Report } from '../core/results.js';

/** A reporter reads the finished report and writes or prints it; it returns the path of a file it wrote. */
export interface Reporter {
  name: string;
  onFinished(report: Report, outDir: string): Promise<string | undefined>;
}
