-- Issue 18: an answer reaches exactly the prompt the person saw. A record keeps whether it
-- asks for a secret (answered at the keyboard only) and the identity of the program that
-- asked: the tmux server's pid, the pane's first process, the agent's process and its start
-- time (clock ticks after boot). 0 = not known.
ALTER TABLE prompts ADD COLUMN secret INTEGER NOT NULL DEFAULT 0;
ALTER TABLE prompts ADD COLUMN tmux_pid INTEGER NOT NULL DEFAULT 0;
ALTER TABLE prompts ADD COLUMN pane_pid INTEGER NOT NULL DEFAULT 0;
ALTER TABLE prompts ADD COLUMN agent_pid INTEGER NOT NULL DEFAULT 0;
ALTER TABLE prompts ADD COLUMN agent_start INTEGER NOT NULL DEFAULT 0;
