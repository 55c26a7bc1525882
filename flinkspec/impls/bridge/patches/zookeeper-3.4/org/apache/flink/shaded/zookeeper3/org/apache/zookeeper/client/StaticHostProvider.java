package org.apache.flink.shaded.zookeeper3.org.apache.zookeeper.client;

import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.UnknownHostException;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Collections;
import java.util.List;

/**
 * ZooKeeper 3.4's {@code StaticHostProvider} (Flink 1.13 and 1.14 ship ZooKeeper 3.4.14 in
 * lib/flink-shaded-zookeeper), with ZOOKEEPER-3779's fix: the host of an unresolved address is
 * {@link InetSocketAddress#getHostString()}. 3.4.14 reads it from {@code toString()}, whose form JDK 14 changed
 * ({@code 127.0.0.1/<unresolved>:port}), so its client never connects on the suite's JDK 17. The bridge compiles
 * this class ahead of the jar's only for ZooKeeper 3.4; nothing else of ZooKeeper or Flink is replaced. Otherwise
 * as 3.4.14: the addresses shuffled once, each resolved when it is next, a pause of {@code spinDelay} after a
 * whole round without a connection.
 */
public final class StaticHostProvider implements HostProvider {

    /** Resolves a host name (3.4.14's test seam, kept for its signature). */
    public interface Resolver {
        InetAddress[] getAllByName(String name) throws UnknownHostException;
    }

    private final List<InetSocketAddress> serverAddresses = new ArrayList<>(5);
    private final Resolver resolver;
    private int lastIndex = -1;
    private int currentIndex = -1;

    public StaticHostProvider(Collection<InetSocketAddress> serverAddresses) {
        this(serverAddresses, InetAddress::getAllByName);
    }

    public StaticHostProvider(Collection<InetSocketAddress> serverAddresses, Resolver resolver) {
        if (serverAddresses.isEmpty()) {
            throw new IllegalArgumentException("A HostProvider may not be empty!");
        }
        this.resolver = resolver;
        this.serverAddresses.addAll(serverAddresses);
        Collections.shuffle(this.serverAddresses);
    }

    @Override
    public int size() {
        return serverAddresses.size();
    }

    @Override
    public InetSocketAddress next(long spinDelay) {
        currentIndex = (currentIndex + 1) % serverAddresses.size();
        if (currentIndex == lastIndex && spinDelay > 0) {
            try {
                Thread.sleep(spinDelay);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        } else if (lastIndex == -1) {
            lastIndex = 0;
        }
        InetSocketAddress current = serverAddresses.get(currentIndex);
        try {
            InetAddress[] resolved = resolver.getAllByName(current.getHostString());
            return resolved.length == 0 ? current : new InetSocketAddress(resolved[0], current.getPort());
        } catch (UnknownHostException e) {
            return current;
        }
    }

    @Override
    public void onConnected() {
        lastIndex = currentIndex;
    }
}
