import type { Sql } from '../../db/client.js';
import type { Route } from '../../http/router.js';
import { conversationRoutes } from './conversation-routes.js';
import { groupRoutes } from './group-routes.js';

/** Groups, conversations and their messages. */
export const messagingRoutes = (sql: Sql): Route[] => [...groupRoutes(sql), ...conversationRoutes(sql)];
