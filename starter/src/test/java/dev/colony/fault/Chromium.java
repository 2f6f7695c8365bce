package dev.colony.fault;

import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.File;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import org.openqa.selenium.OutputType;
import org.openqa.selenium.TakesScreenshot;
import org.openqa.selenium.WebDriver;
import org.openqa.selenium.chrome.ChromeDriver;
import org.openqa.selenium.chrome.ChromeDriverService;
import org.openqa.selenium.chrome.ChromeOptions;

/**
 * Debian's headless Chromium, driven through its chromedriver (nothing downloads a browser), for
 * the browser tests; screenshots go to {@code target/<prefix>-<name>.png} for a reviewer.
 */
final class Chromium {
  static final Path BINARY = Path.of(System.getProperty("colony.chromium", "/usr/bin/chromium"));
  static final Path DRIVER = Path.of(System.getProperty("colony.chromedriver", "/usr/bin/chromedriver"));

  private Chromium() {}

  /** A new browser whose profile and driver log live under {@code tmp}; {@code width} x {@code height} window. */
  static WebDriver start(Path tmp, int width, int height) {
    assertTrue(Files.isExecutable(BINARY) && Files.isExecutable(DRIVER),
        "the browser tests need Debian's chromium and chromium-driver (" + BINARY + ", " + DRIVER
            + "): ./run-tests installs them with apt-get when it can");
    ChromeOptions options = new ChromeOptions();
    options.setBinary(BINARY.toFile());
    // The flags keep Chromium off the network (this machine has none beyond loopback).
    options.addArguments("--headless=new", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
        "--disable-background-networking", "--disable-component-update", "--disable-sync",
        "--disable-dev-shm-usage", "--window-size=" + width + "," + height,
        "--user-data-dir=" + tmp.resolve("chromium-" + System.nanoTime()));
    ChromeDriverService service = new ChromeDriverService.Builder()
        .usingDriverExecutable(DRIVER.toFile()).usingAnyFreePort()
        .withLogFile(tmp.resolve("chromedriver-" + System.nanoTime() + ".log").toFile()).build();
    return new ChromeDriver(service, options);
  }

  static void screenshot(WebDriver browser, String prefix, String name) throws Exception {
    File shot = ((TakesScreenshot) browser).getScreenshotAs(OutputType.FILE);
    Files.createDirectories(Path.of("target"));
    Files.copy(shot.toPath(), Path.of("target", prefix + "-" + name + ".png"), StandardCopyOption.REPLACE_EXISTING);
  }
}
