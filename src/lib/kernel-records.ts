// Writing the records a kernel reads (solver-as/layouts.json, made into KERNEL_LAYOUTS by
// solver-as/layouts.mjs): fields by name at the offsets and in the types the description gives, so that
// no writer spells out an offset and a field the description lacks is a type error.
export { KERNEL_LAYOUTS } from './generated/kernel-layouts.js';

type FieldType = 'u8' | 'i32' | 'u32' | 'f64';

/** A record of layouts.json as generated: its size and each field's byte offset and type. */
export interface RecordLayout {
  readonly bytes: number;
  readonly fields: { readonly [name: string]: { readonly at: number; readonly type: FieldType } };
}

/** Every field of one record, by name. */
export type RecordValues<L extends RecordLayout> = { readonly [K in keyof L['fields']]: number };

/** Writes record `index` of an array of `layout` records starting at byte `base` of the view (little-endian, as the kernels read). */
export function writeRecord<L extends RecordLayout>(view: DataView, base: number, index: number, layout: L, values: RecordValues<L>): void {
  const at = base + index * layout.bytes;
  for (const name in layout.fields) {
    const field = layout.fields[name];
    const value = values[name as keyof L['fields']];
    switch (field.type) {
      case 'f64':
        view.setFloat64(at + field.at, value, true);
        break;
      case 'i32':
        view.setInt32(at + field.at, value, true);
        break;
      case 'u32':
        view.setUint32(at + field.at, value, true);
        break;
      case 'u8':
        view.setUint8(at + field.at, value);
        break;
    }
  }
}
