package com.adbconnector.phonefw;

import java.io.BufferedInputStream;
import java.io.BufferedOutputStream;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.net.Socket;
import java.nio.charset.StandardCharsets;

/**
 * The fake framework's line to the phone it stands for: a loopback socket
 * (address in the system property phonefw.addr) to the Go side
 * (emulator/phonefw), which answers from the virtual phone's state or a
 * canned screen. A request is u32 count then count strings (u32 n, n bytes
 * UTF-8); an answer is u8 status (0 ok, 1 error) then one blob (u32 n, n
 * bytes): the result, or the error's text.
 */
public final class Phone {
    private static DataInputStream in;
    private static DataOutputStream out;

    private Phone() {}

    /** Thrown when the phone answers with an error. */
    public static final class Refused extends RuntimeException {
        public Refused(String why) {
            super(why);
        }
    }

    public static synchronized byte[] call(String... args) {
        try {
            if (out == null) {
                String addr = System.getProperty("phonefw.addr");
                if (addr == null) {
                    throw new IllegalStateException("phonefw.addr not set");
                }
                int i = addr.lastIndexOf(':');
                Socket s = new Socket(addr.substring(0, i), Integer.parseInt(addr.substring(i + 1)));
                s.setTcpNoDelay(true);
                in = new DataInputStream(new BufferedInputStream(s.getInputStream()));
                out = new DataOutputStream(new BufferedOutputStream(s.getOutputStream()));
            }
            out.writeInt(args.length);
            for (String a : args) {
                byte[] b = a.getBytes(StandardCharsets.UTF_8);
                out.writeInt(b.length);
                out.write(b);
            }
            out.flush();
            int status = in.readUnsignedByte();
            byte[] b = new byte[in.readInt()];
            in.readFully(b);
            if (status != 0) {
                throw new Refused(new String(b, StandardCharsets.UTF_8));
            }
            return b;
        } catch (IOException e) {
            throw new RuntimeException("phonefw: " + e, e);
        }
    }

    public static String str(String... args) {
        return new String(call(args), StandardCharsets.UTF_8);
    }

    public static boolean bool(String... args) {
        return "1".equals(str(args));
    }
}
