import { basename } from 'node:path';
import type { Readable } from 'node:stream';
import busboy from 'busboy';
import { badRequest } from '../../http/errors.js';

export interface MultipartUpload {
  /** The `file` part, or undefined when none was sent (or it was over the limit). */
  file: Buffer | undefined;
  filename: string;
  fileTooLarge: boolean;
  /** More than one `file` part. */
  extraFiles: boolean;
  fields: Record<string, string>;
  /** Parts other than `file` and the accepted fields. */
  unknown: string[];
}

/**
 * Reads a multipart/form-data body, keeping at most `maxFileBytes` of the `file` part in memory
 * (beyond that the part is discarded and `fileTooLarge` set). Errors of the source stream (413) pass through.
 */
export function readMultipart(stream: Readable, headers: Record<string, string>, maxFileBytes: number, acceptedFields: string[]): Promise<MultipartUpload> {
  if (stream.errored) return Promise.reject(stream.errored);
  let parser: busboy.Busboy;
  try {
    parser = busboy({
      headers: { 'content-type': headers['content-type'] },
      defParamCharset: 'utf8',
      // busboy flags a file that reaches fileSize; one of exactly maxFileBytes is allowed.
      limits: { fileSize: maxFileBytes + 1, files: 4, fields: 16, parts: 20, fieldSize: 64 * 1024 },
    });
  } catch {
    stream.resume();
    return Promise.reject(badRequest('The request body must be multipart/form-data with a file field named file.'));
  }
  const out: MultipartUpload = { file: undefined, filename: 'upload.csv', fileTooLarge: false, extraFiles: false, fields: {}, unknown: [] };
  const ended: Promise<void>[] = [];

  return new Promise<MultipartUpload>((resolve, reject) => {
    const fail = (err: unknown) => {
      stream.unpipe(parser);
      stream.resume();
      reject(err);
    };
    const malformed = () => fail(badRequest('The multipart body is malformed.'));
    stream.on('error', fail);
    parser.on('file', (name, part, info) => {
      ended.push(new Promise((done) => part.once('end', done).once('close', done)));
      // A form cut off inside a part errors the part as well as the parser: unhandled, it would be
      // thrown as an uncaught exception and end the process.
      part.on('error', malformed);
      if (name !== 'file') {
        out.unknown.push(name);
        part.resume();
        return;
      }
      if (out.file || out.fileTooLarge) {
        out.extraFiles = true;
        part.resume();
        return;
      }
      if (info.filename)
        out.filename =
          basename(info.filename.replaceAll('\\', '/'))
            // biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are what it strips from a file name
            .replace(/[\u0000-\u001f\u007f]/g, '')
            .slice(0, 255) || out.filename;
      const chunks: Buffer[] = [];
      part.on('data', (chunk: Buffer) => {
        if (!out.fileTooLarge) chunks.push(chunk);
      });
      part.on('limit', () => {
        out.fileTooLarge = true;
        chunks.length = 0;
      });
      part.on('end', () => {
        if (!out.fileTooLarge) out.file = Buffer.concat(chunks);
      });
    });
    parser.on('field', (name, value) => {
      if (acceptedFields.includes(name)) out.fields[name] = value;
      else out.unknown.push(name);
    });
    parser.on('error', malformed);
    parser.on('close', () => {
      void Promise.all(ended).then(() => resolve(out));
    });
    stream.pipe(parser);
  });
}
