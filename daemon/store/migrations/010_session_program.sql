-- Issue 18: a session keeps the identity of the program that spoke from its pane (the tmux
-- server, the pane's first process, the agent and its start), so that after a daemon
-- restart the liveness sweep still retires a session whose pane now runs another program
-- (a tmux server restarted on the same socket). 0 = not known.
ALTER TABLE sessions ADD COLUMN tmux_pid INTEGER NOT NULL DEFAULT 0;
ALTER TABLE sessions ADD COLUMN pane_pid INTEGER NOT NULL DEFAULT 0;
ALTER TABLE sessions ADD COLUMN agent_pid INTEGER NOT NULL DEFAULT 0;
ALTER TABLE sessions ADD COLUMN agent_start INTEGER NOT NULL DEFAULT 0;
