import de.bwaldvogel.mongo.MongoServer;
import de.bwaldvogel.mongo.backend.memory.MemoryBackend;

/**
 * Starts the in-memory MongoDB-wire-compatible server on a chosen host and port
 * (the library's own main class is fixed to 27017). Run with the single-file launcher:
 *   java -cp ".cache/mongo-stand-in/*" deploy/mongo-stand-in/MongoStandIn.java 27017
 */
public class MongoStandIn {
    public static void main(String[] args) throws Exception {
        int port = args.length > 0 ? Integer.parseInt(args[0]) : 27017;
        String host = args.length > 1 ? args[1] : "127.0.0.1";
        MongoServer server = new MongoServer(new MemoryBackend());
        server.bind(host, port);
        System.out.println("mongo stand-in listening on " + host + ":" + port);
        Runtime.getRuntime().addShutdownHook(new Thread(server::shutdownNow));
        Thread.currentThread().join();
    }
}
