import type { AttributeRow } from '../attributes/definitions.js';
import { charLength } from '../../http/validate.js';
import { typedTextValue, type AttributeValue } from '../pois/values.js';
import { addressColumns, attributeColumns, matchAttribute, type AddressColumn } from './header.js';

/** Where each value sits in a row. An attribute column without an attribute (deleted after the upload)
 *  makes its non-empty cells errors. */
export interface ColumnPlan {
  width: number;
  name: number;
  latitude: number;
  longitude: number;
  category: number;
  /** The address columns there are (a column an attribute owns is the attribute's). */
  address: { index: number; column: AddressColumn }[];
  attributes: { index: number; column: string; attr: AttributeRow | undefined }[];
}

/** What a row without coordinates gives to be placed by: free text, or the parts. */
export type RowAddress = Partial<Record<AddressColumn, string>>;

export interface PoiInput {
  name: string;
  /** NaN until a row placed by its address is geocoded. */
  latitude: number;
  longitude: number;
  category: string | null;
  /** Values keyed by attribute id, as stored. */
  attrs: Record<string, AttributeValue>;
}

export function planColumns(columns: string[], attrs: AttributeRow[]): ColumnPlan {
  return {
    width: columns.length,
    name: columns.indexOf('name'),
    latitude: columns.indexOf('latitude'),
    longitude: columns.indexOf('longitude'),
    category: columns.indexOf('category'),
    address: addressColumns(columns, attrs).map((column) => ({ index: columns.indexOf(column), column })),
    attributes: attributeColumns(columns, attrs).map((column) => ({ index: columns.indexOf(column), column, attr: matchAttribute(attrs, column) })),
  };
}

const DECIMAL = /^[+-]?(\d+(\.\d*)?|\.\d+)$/;
const MAX_NAME = 255;
/** PostgreSQL text cannot hold U+0000. */
const NUL = '\u0000';

const tooLong = (s: string) => s.length > MAX_NAME && charLength(s) > MAX_NAME;

function coordinate(cell: string | undefined, column: string, bound: number, errors: string[]): number {
  const text = (cell ?? '').trim();
  if (text === '') {
    errors.push(`${column}: is required`);
    return NaN;
  }
  if (!DECIMAL.test(text)) {
    errors.push(`${column}: must be a number with a dot as the decimal separator`);
    return NaN;
  }
  const value = Number(text);
  if (value < -bound || value > bound) errors.push(`${column}: must be between -${bound} and ${bound}`);
  return value;
}

/** A data row as a POI (with `address` when it is to be placed by it), or the reasons it cannot be one (each names its column). */
export function validateRow(fields: string[], plan: ColumnPlan): { poi: PoiInput; address?: RowAddress } | { errors: string[] } {
  if (fields.length > plan.width) {
    return { errors: [`row: has ${fields.length} values but the header has ${plan.width} columns (quote values that contain the delimiter)`] };
  }
  const errors: string[] = [];
  const name = (fields[plan.name] ?? '').trim();
  if (name === '') errors.push('name: is required');
  else if (tooLong(name)) errors.push(`name: may not be longer than ${MAX_NAME} characters`);
  else if (name.includes(NUL)) errors.push('name: may not contain NUL characters');
  const cell = (i: number) => (i < 0 ? '' : (fields[i] ?? '').trim());
  // A row with no coordinates at all and an address is placed by the address; coordinates win when given.
  const address: RowAddress = {};
  for (const { index, column } of plan.address) {
    const value = cell(index);
    if (value === '') continue;
    if (tooLong(value)) errors.push(`${column}: may not be longer than ${MAX_NAME} characters`);
    else if (value.includes(NUL)) errors.push(`${column}: may not contain NUL characters`);
    else address[column] = value;
  }
  const byAddress = cell(plan.latitude) === '' && cell(plan.longitude) === '' && plan.address.length > 0;
  let latitude = Number.NaN,
    longitude = Number.NaN;
  if (byAddress) {
    if (address.address !== undefined && Object.keys(address).length > 1) {
      errors.push('address: give either address or street, housenumber, postcode, city, country, not both');
    } else if (address.housenumber !== undefined && address.street === undefined) errors.push('housenumber: needs street');
    else if (!address.address && !address.street && !address.postcode && !address.city) {
      errors.push('address: is required when latitude and longitude are not given (or street, postcode or city)');
    }
  } else {
    latitude = coordinate(plan.latitude < 0 ? '' : fields[plan.latitude], 'latitude', 90, errors);
    longitude = coordinate(plan.longitude < 0 ? '' : fields[plan.longitude], 'longitude', 180, errors);
  }
  let category: string | null = null;
  if (plan.category >= 0) {
    category = (fields[plan.category] ?? '').trim() || null;
    if (category && tooLong(category)) errors.push(`category: may not be longer than ${MAX_NAME} characters`);
    else if (category?.includes(NUL)) errors.push('category: may not contain NUL characters');
  }
  const attrs: Record<string, AttributeValue> = {};
  for (const { index, column, attr } of plan.attributes) {
    const cell = fields[index];
    if (cell === undefined || cell.trim() === '') continue;
    if (!attr) {
      errors.push(`${column}: is not an attribute of this team`);
      continue;
    }
    const typed = typedTextValue(attr, cell);
    if ('error' in typed) errors.push(`${column}: ${typed.error}`);
    else attrs[attr.id] = typed.value;
  }
  if (errors.length) return { errors };
  return byAddress ? { poi: { name, latitude, longitude, category, attrs }, address } : { poi: { name, latitude, longitude, category, attrs } };
}
