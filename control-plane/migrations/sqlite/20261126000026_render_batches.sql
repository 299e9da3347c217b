-- A render job's vehicle: `make/model/year`, the first three parts of its
-- variant. A render node leases the queued jobs of one vehicle and revision
-- together and draws them from one mesh (a spin's 24 frames, a vehicle's
-- views): docs/render-nodes.md, "Batches". Jobs queued before this column
-- existed have none and are leased alone.
ALTER TABLE render_jobs ADD COLUMN vehicle TEXT;
CREATE INDEX render_jobs_batch ON render_jobs(vehicle, revision, priority, created_at)
    WHERE status = 'queued';
