-- Groups, conversations and messages. Ids are prefixed ULIDs compared byte-wise (COLLATE "C") so
-- "newest first" and starting_after follow creation order whatever the database's locale.
-- Timestamps are Unix epoch seconds, as the API shows them.

CREATE TABLE groups (
  id          text COLLATE "C" PRIMARY KEY,
  team_id     text NOT NULL REFERENCES teams(id) ON DELETE CASCADE,
  name        text NOT NULL CHECK (length(name) BETWEEN 1 AND 255),
  description text,
  avatar_url  text,
  contacts    jsonb NOT NULL DEFAULT '[]',
  created_at  bigint NOT NULL DEFAULT floor(extract(epoch FROM now())),
  archived_at bigint,
  UNIQUE (team_id, id)
);

CREATE TABLE conversations (
  id                text COLLATE "C" PRIMARY KEY,
  team_id           text NOT NULL REFERENCES teams(id) ON DELETE CASCADE,
  contact_id        text CHECK (length(contact_id) BETWEEN 1 AND 100),
  group_id          text COLLATE "C",
  pinned_message_id text COLLATE "C",
  is_pinned         boolean NOT NULL DEFAULT false,
  is_muted          boolean NOT NULL DEFAULT false,
  last_active_at    bigint,
  last_opened_at    bigint,
  created_at        bigint NOT NULL DEFAULT floor(extract(epoch FROM now())),
  archived_at       bigint,
  CHECK ((contact_id IS NULL) <> (group_id IS NULL)),
  UNIQUE (team_id, id),
  -- Deleting a group deletes its conversation (and, below, the messages).
  FOREIGN KEY (team_id, group_id) REFERENCES groups (team_id, id) ON DELETE CASCADE
);
-- A group has one conversation, the one its conversation_id names.
CREATE UNIQUE INDEX conversations_group ON conversations (group_id) WHERE group_id IS NOT NULL;
CREATE INDEX conversations_team ON conversations (team_id, id);

CREATE TABLE messages (
  id              text COLLATE "C" PRIMARY KEY,
  team_id         text NOT NULL,
  conversation_id text COLLATE "C" NOT NULL,
  text            text NOT NULL,
  created_at      bigint NOT NULL DEFAULT floor(extract(epoch FROM now())),
  FOREIGN KEY (team_id, conversation_id) REFERENCES conversations (team_id, id) ON DELETE CASCADE
);
CREATE INDEX messages_conversation ON messages (conversation_id, id);
