import { timestamp } from '../ids.js';

export interface CategoryRow {
  id: string;
  team_id: string;
  name: string;
  created_at: Date;
  updated_at: Date;
}

export const categoryJson = (r: CategoryRow) => ({
  id: r.id,
  name: r.name,
  created_at: timestamp(r.created_at),
  updated_at: timestamp(r.updated_at),
});
