// A Java program to dump with jstack: named threads spinning, sleeping and
// waiting on a lock, stopping by themselves after args[0] seconds.
public class Threads {
    static volatile boolean stop;
    static volatile long sink;
    static final Object lock = new Object();

    static void spinLeaf() { while (!stop) sink++; }
    static void spinMid() { spinLeaf(); }

    static void nap() {
        while (!stop) {
            try { Thread.sleep(5); } catch (InterruptedException e) { return; }
        }
    }

    static void holdLock() {
        synchronized (lock) { nap(); }
    }

    public static void main(String[] args) throws Exception {
        long secs = args.length > 0 ? Long.parseLong(args[0]) : 5;
        Thread[] t = {
            new Thread(Threads::spinMid, "spin-1"),
            new Thread(Threads::nap, "sleeper"),
            new Thread(Threads::holdLock, "holder"),
            new Thread(Threads::holdLock, "blocked"),
        };
        for (Thread x : t) { x.setDaemon(true); x.start(); Thread.sleep(50); }
        Thread.sleep(secs * 1000);
        stop = true;
    }
}
