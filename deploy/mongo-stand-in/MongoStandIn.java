import de.bwaldvogel.mongo.MongoBackend;
import de.bwaldvogel.mongo.MongoServer;
import de.bwaldvogel.mongo.backend.Cursor;
import de.bwaldvogel.mongo.backend.CursorRegistry;
import de.bwaldvogel.mongo.backend.h2.H2Backend;
import de.bwaldvogel.mongo.backend.memory.MemoryBackend;
import de.bwaldvogel.mongo.bson.Document;
import de.bwaldvogel.mongo.exception.MongoServerError;
import de.bwaldvogel.mongo.wire.bson.BsonEncoder;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.Channel;
import java.lang.management.ManagementFactory;
import java.lang.management.MemoryPoolMXBean;
import java.lang.management.MemoryType;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;

/**
 * Starts the MongoDB-wire-compatible stand-in on a chosen host and port (the library's own main
 * class is fixed to 27017), run with the single-file launcher:
 *   java -Xmx2g -cp ".cache/mongo-stand-in/*" deploy/mongo-stand-in/MongoStandIn.java PORT [HOST] [memory | h2:FILE]
 * memory: everything in the heap (tests). h2:FILE: data in one H2 MVStore file that survives
 * restarts and kill -9 (`pnpm start`): every write command is committed before it is answered.
 * A full store refuses writes with code 14031 (OutOfDiskSpace) and a message saying what to do,
 * and says so once on stderr: the heap near -Xmx (memory), or no space left for the file (h2).
 */
public class MongoStandIn {
    /** Writes that grow the store: refused when it is full (deletes and drops still pass, they make room). */
    static final Set<String> GROWING = Set.of("insert", "update", "findandmodify", "createindexes", "create");
    static final Set<String> WRITES = Set.of("insert", "update", "delete", "findandmodify", "createindexes", "create",
            "drop", "dropindexes", "dropdatabase", "renamecollection");
    static final int OUT_OF_DISK_SPACE = 14031;

    public static void main(String[] args) throws Exception {
        int port = args.length > 0 ? Integer.parseInt(args[0]) : 27017;
        String host = args.length > 1 ? args[1] : "127.0.0.1";
        String storage = args.length > 2 ? args[2] : "memory";
        long maxHeapMb = Runtime.getRuntime().maxMemory() >> 20;
        MongoBackend backend;
        String where;
        if (storage.startsWith("h2:")) {
            String file = storage.substring(3);
            backend = new DurableH2Backend(file);
            where = "h2 file " + file;
        } else if (storage.equals("memory")) {
            backend = new GuardedMemoryBackend(new HeapGuard(Double.parseDouble(System.getProperty("standin.maxHeapFill", "0.9"))));
            where = "memory";
        } else {
            throw new IllegalArgumentException("storage must be memory or h2:FILE, not " + storage);
        }
        MongoServer server = new MongoServer(backend);
        server.bind(host, port);
        System.out.println("mongo stand-in listening on " + host + ":" + port + " (storage: " + where + ", heap max " + maxHeapMb + " MB)");
        // shutdown() closes the backend: the H2 file is written out completely on SIGTERM/SIGINT
        Runtime.getRuntime().addShutdownHook(new Thread(server::shutdown));
        Thread.currentThread().join();
    }

    static MongoServerError storeFull(String message) {
        return new MongoServerError(OUT_OF_DISK_SPACE, "OutOfDiskSpace", "the MongoDB stand-in store is full: " + message);
    }

    /**
     * Is the heap (live data, after a collection) above the fill ratio? Checked cheaply (the heap
     * in use, garbage included: below the limit there is certainly room); above it, a full
     * collection tells live data from garbage. That collection is forced at most every 250 ms, and
     * never more than a tenth of the time: after one that took 10 s (a heap of many GB), the next
     * waits 100 s unless the old generation, where the store's documents live, has grown by half
     * the room left since. Forced on every write near the limit, full collections of a large heap
     * stopped the server for most of the time, and clients timed out as they would with a MongoDB
     * stopped that long.
     */
    static final class HeapGuard {
        private static final long MIN_RECHECK_NANOS = 250_000_000L;
        private static final MemoryPoolMXBean OLD = oldGeneration();
        private final long limit;
        private final long max;
        private final long maxMb;
        private volatile boolean full;
        private long checkedAt;
        private long collectNanos;
        private long oldAtCheck;

        HeapGuard(double fill) {
            this.max = Runtime.getRuntime().maxMemory();
            this.limit = (long) (max * fill);
            this.maxMb = max >> 20;
        }

        private static MemoryPoolMXBean oldGeneration() {
            for (MemoryPoolMXBean pool : ManagementFactory.getMemoryPoolMXBeans()) {
                String name = pool.getName();
                if (pool.getType() == MemoryType.HEAP && (name.contains("Old") || name.contains("Tenured"))) return pool;
            }
            return null;
        }

        private static long used() {
            Runtime rt = Runtime.getRuntime();
            return rt.totalMemory() - rt.freeMemory();
        }

        private static long oldUsed() {
            return OLD != null ? OLD.getUsage().getUsed() : used();
        }

        private boolean due(long now) {
            if (checkedAt == 0) return true;
            if (now - checkedAt > Math.max(MIN_RECHECK_NANOS, 10 * collectNanos)) return true;
            return oldUsed() - oldAtCheck > (max - limit) / 2;
        }

        void checkRoom() {
            // used includes garbage: below the limit there is certainly room
            if (used() < limit) {
                if (full) report(false, used());
                return;
            }
            synchronized (this) {
                long now = System.nanoTime();
                if (due(now)) {
                    System.gc();
                    checkedAt = System.nanoTime();
                    collectNanos = checkedAt - now;
                    oldAtCheck = oldUsed();
                    long live = used();
                    boolean nowFull = live >= limit;
                    if (nowFull != full) report(nowFull, live);
                }
            }
            if (full) {
                throw storeFull("its memory holds " + (used() >> 20) + " of " + maxMb + " MB; writes are refused until data is"
                        + " deleted, or restart it with more memory (MONGO_STAND_IN_HEAP, now " + maxMb + " MB)");
            }
        }

        /** After a delete or a drop: the next growing write collects and looks again instead of trusting the last look. */
        synchronized void roomMayHaveChanged() {
            checkedAt = 0;
        }

        private synchronized void report(boolean nowFull, long live) {
            full = nowFull;
            System.err.println(nowFull
                    ? "mongo stand-in: STORE FULL: " + (live >> 20) + " of " + maxMb + " MB heap in use; refusing writes (code 14031) until data is deleted or the heap is raised (MONGO_STAND_IN_HEAP)"
                    : "mongo stand-in: store has room again; accepting writes");
        }
    }

    /** The memory backend, refusing growing writes when the heap is nearly full (instead of dying of OutOfMemoryError). */
    static final class GuardedMemoryBackend extends MemoryBackend {
        private final HeapGuard guard;

        GuardedMemoryBackend(HeapGuard guard) {
            this.guard = guard;
        }

        @Override
        public Document handleCommand(Channel channel, String database, String command, Document query) {
            String name = command.toLowerCase();
            if (GROWING.contains(name)) guard.checkRoom();
            Document result = super.handleCommand(channel, database, command, query);
            if (WRITES.contains(name) && !GROWING.contains(name)) guard.roomMayHaveChanged();
            return name.equals("aggregate") ? Batches.of(getCursorRegistry(), query, result) : result;
        }
    }

    /**
     * The H2 backend committing every write command before it is answered: with the default
     * auto-commit (about every second) kill -9 lost ~1000 acknowledged documents; with this, none
     * (page cache only, as for real MongoDB without journaling to disk: not power-loss safe).
     */
    static final class DurableH2Backend extends H2Backend {
        private final String file;
        private volatile boolean reportedFull;

        DurableH2Backend(String file) {
            super(file);
            this.file = file;
        }

        @Override
        public Document handleCommand(Channel channel, String database, String command, Document query) {
            if (command.equalsIgnoreCase("aggregate"))
                return Batches.of(getCursorRegistry(), query, super.handleCommand(channel, database, command, query));
            if (!WRITES.contains(command.toLowerCase())) return super.handleCommand(channel, database, command, query);
            try {
                Document result = super.handleCommand(channel, database, command, query);
                commit();
                return result;
            } catch (RuntimeException e) {
                if (!isDiskFull(e)) throw e;
                if (!reportedFull) {
                    reportedFull = true;
                    System.err.println("mongo stand-in: STORE FULL: no space left on the disk holding " + file + "; refusing writes (code 14031)");
                }
                throw storeFull("no space left on the disk holding " + file + "; free disk space, or start fresh (pnpm start --fresh)");
            }
        }

        private static boolean isDiskFull(Throwable e) {
            for (Throwable t = e; t != null; t = t.getCause()) {
                String m = String.valueOf(t.getMessage());
                if (m.contains("No space left on device") || m.contains("Disk quota exceeded")) return true;
            }
            return false;
        }
    }

    /**
     * An aggregate's result in MongoDB's batches: the library answers with the whole result in the
     * first reply, so a client read a large result (an hour's rows for the rollup builder) as one
     * buffer of tens of MB and held every document of it at once, where MongoDB sends the first
     * `cursor.batchSize` documents (101 when not given) and the rest through getMore, each batch
     * at most 16 MiB (or getMore's `batchSize` documents). The rest waits here as a cursor of the
     * library's registry, which its getMore and killCursors serve.
     */
    static final class Batches implements Cursor {
        static final int FIRST_BATCH = 101;
        static final int MAX_BATCH_BYTES = 16 * 1024 * 1024;
        private final long id;
        private final List<Document> docs;
        /** The next document to send; those before it are released (null). */
        private int next;

        private Batches(long id, List<Document> docs, int next) {
            this.id = id;
            this.docs = docs;
            this.next = next;
        }

        @SuppressWarnings("unchecked")
        static Document of(CursorRegistry registry, Document query, Document result) {
            if (!(result.get("cursor") instanceof Document cursor)) return result;
            if (!(cursor.get("firstBatch") instanceof List<?> all)) return result;
            if (!(cursor.get("id") instanceof Number id) || id.longValue() != 0) return result;
            int asked = FIRST_BATCH;
            if (query.get("cursor") instanceof Document options && options.get("batchSize") instanceof Number n)
                asked = n.intValue();
            List<Document> docs = new ArrayList<>((List<Document>) all);
            int first = batchEnd(docs, 0, asked);
            if (first >= docs.size()) return result;
            Batches rest = new Batches(registry.generateCursorId(), docs, first);
            registry.add(rest);
            cursor.put("firstBatch", new ArrayList<>(docs.subList(0, first)));
            cursor.put("id", rest.id);
            for (int i = 0; i < first; i++) docs.set(i, null);
            return result;
        }

        /** Where a batch from `from` ends: at most `count` documents (any number when negative) and 16 MiB, at least one. */
        private static int batchEnd(List<Document> docs, int from, int count) {
            int end = from;
            long bytes = 0;
            while (end < docs.size() && (count < 0 || end - from < count)) {
                bytes += bsonSize(docs.get(end));
                // a single document is at most 16 MiB itself: a batch holds at least one, as MongoDB's
                if (bytes > MAX_BATCH_BYTES && end > from) break;
                end++;
            }
            return end;
        }

        private static int bsonSize(Document doc) {
            ByteBuf buf = Unpooled.buffer();
            try {
                BsonEncoder.encodeDocument(doc, buf);
                return buf.writerIndex();
            } finally {
                buf.release();
            }
        }

        @Override
        public long getId() {
            return id;
        }

        @Override
        public synchronized boolean isEmpty() {
            return next >= docs.size();
        }

        /** getMore: `count` documents (0: as many as fit in 16 MiB). */
        @Override
        public synchronized List<Document> takeDocuments(int count) {
            int end = batchEnd(docs, next, count > 0 ? count : -1);
            List<Document> batch = new ArrayList<>(docs.subList(next, end));
            for (int i = next; i < end; i++) docs.set(i, null);
            next = end;
            return batch;
        }
    }
}
